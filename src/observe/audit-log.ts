import { closeSync, fstatSync, mkdirSync, openSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type Clock, systemClock } from "../core/clock.js";
import { tryLock } from "../core/file-lock.js";
import { serialiseAuditEvent } from "./audit-line.js";
import { AUDIT_FILE, AUDIT_FOLDER, type AuditQuery, queryAuditFolder, rotatedName } from "./audit-read.js";
import type { AuditEvent, AuditSink } from "./events.js";

export { AUDIT_FILE, AUDIT_FOLDER } from "./audit-read.js";
/** Size past which the current file is rotated: 16 MiB. */
export const DEFAULT_AUDIT_MAX_BYTES = 16 * 1024 * 1024;
/**
 * A rotation lock older than this, or whose owner has ended, was left by a process that died
 * while rotating (the one lock rule, core/file-lock.ts).
 */
const STALE_ROTATION_LOCK_MS = 60_000;
const ROTATION_LOCK = "audit.rotate.lock";
/** How long the current file stays open without an event. */
export const AUDIT_IDLE_CLOSE_MS = 5_000;

/** The current file, open for appending, and which file it is. */
interface OpenFile {
  readonly descriptor: number;
  readonly device: number;
  readonly inode: number;
}

/** Options of {@link AuditLog}. */
export interface AuditLogOptions {
  /** The data folder; events go to `<dataFolder>/audit/`. */
  readonly dataFolder: string;
  /** Rotate the current file before a write would take it past this many bytes. */
  readonly maxBytes?: number;
  /**
   * Told about a failed write, once until a write succeeds again (default: one line on
   * stderr). The audit log never throws into the call that records an event.
   */
  readonly onError?: (error: unknown) => void;
  /** Names rotated files; injectable for tests. */
  readonly clock?: Clock;
}

/**
 * The audit log: one JSON line per {@link AuditEvent} in `<data>/audit/audit.jsonl`.
 *
 * Several processes may append at once. Each line is one `write` on a file opened with
 * `O_APPEND`, so lines never interleave. The file stays open between events (a tool call
 * records several), and before each event the path is checked to still name the open file,
 * so a process writes to the current file even after another rotated or removed it; the
 * file is closed after {@link AUDIT_IDLE_CLOSE_MS} without events, and by `close()`. Writers never read the file (a
 * read races with another process's write in progress): a line torn by a crash is joined
 * by the next line, and readers recover that next event (see audit-line.ts). Rotation renames the
 * current file under a small lock file, so two processes never rotate the same file twice.
 */
export class AuditLog implements AuditSink {
  /** `<data>/audit`. */
  readonly folder: string;
  /** `<data>/audit/audit.jsonl`. */
  readonly file: string;
  readonly #maxBytes: number;
  readonly #onError: (error: unknown) => void;
  readonly #clock: Clock;
  #failing = false;
  #dropped = 0;
  #open: OpenFile | undefined;
  #lastWriteAt = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(options: AuditLogOptions) {
    this.folder = join(options.dataFolder, AUDIT_FOLDER);
    this.file = join(this.folder, AUDIT_FILE);
    this.#maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_AUDIT_MAX_BYTES);
    this.#onError = options.onError ?? reportOnStderr(this.folder);
    this.#clock = options.clock ?? systemClock;
  }

  /** Events that could not be written since this log was made. */
  get droppedEvents(): number {
    return this.#dropped;
  }

  /** Appends `event`. Never throws: a failure goes to `onError` (once until a write succeeds). */
  record(event: AuditEvent): void {
    try {
      this.#append(Buffer.from(serialiseAuditEvent(event), "utf8"));
      this.#failing = false;
    } catch (error) {
      this.#dropped += 1;
      if (this.#failing) return;
      this.#failing = true;
      try {
        this.#onError(error);
      } catch {
        // A reporter that throws must not turn an audit failure into a failed tool call.
      }
    }
  }

  /** Events of the current and rotated files, oldest first, newest last. See {@link AuditQuery}. */
  query(query: AuditQuery = {}): AuditEvent[] {
    return queryAuditFolder(this.folder, query);
  }

  /** Closes the current file (a later event opens it again). */
  close(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#release();
  }

  #append(line: Buffer): void {
    let current = this.#current();
    if (current.size > 0 && current.size + line.length > this.#maxBytes) {
      this.#release();
      this.#rotate(line.length);
      current = this.#current();
    }
    let written: number;
    try {
      written = writeSync(current.descriptor, line);
    } catch (error) {
      // Whatever went wrong with the held file, the next event opens the file again.
      this.#release();
      throw error;
    }
    this.#lastWriteAt = performance.now();
    if (written !== line.length)
      throw new Error(`short write to ${this.file}: ${written} of ${line.length} bytes`);
  }

  /**
   * The open current file and its size. One `stat` of the path tells whether the file held
   * open is still the current one (another process may have rotated or removed it); when it
   * is not, the held file is closed and the current one opened.
   */
  #current(): { descriptor: number; size: number } {
    const open = this.#open;
    if (open !== undefined) {
      const stats = statSync(this.file, { throwIfNoEntry: false });
      if (stats !== undefined && stats.ino === open.inode && stats.dev === open.device)
        return { descriptor: open.descriptor, size: stats.size };
      this.#release();
    }
    const descriptor = this.#openCurrent();
    let stats: ReturnType<typeof fstatSync>;
    try {
      stats = fstatSync(descriptor);
    } catch (error) {
      closeSync(descriptor);
      throw error;
    }
    this.#open = { descriptor, device: stats.dev, inode: stats.ino };
    this.#closeWhenIdle();
    return { descriptor, size: stats.size };
  }

  /** Closes the held file once no event came for {@link AUDIT_IDLE_CLOSE_MS}; the timer never keeps a process alive. */
  #closeWhenIdle(): void {
    if (this.#idleTimer !== undefined) return;
    const check = (): void => {
      const idleFor = performance.now() - this.#lastWriteAt;
      if (idleFor >= AUDIT_IDLE_CLOSE_MS || this.#open === undefined) {
        this.#idleTimer = undefined;
        this.#release();
        return;
      }
      this.#idleTimer = setTimeout(check, AUDIT_IDLE_CLOSE_MS - idleFor).unref();
    };
    this.#lastWriteAt = performance.now();
    this.#idleTimer = setTimeout(check, AUDIT_IDLE_CLOSE_MS).unref();
  }

  #release(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    try {
      closeSync(open.descriptor);
    } catch {
      // Already closed or gone: nothing left to release.
    }
  }

  #openCurrent(): number {
    try {
      return openSync(this.file, "a", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      return openSync(this.file, "a", 0o600);
    }
  }

  /**
   * Renames the current file to `audit-<time>.jsonl` unless another process holds the
   * rotation lock (then this write goes to the current file, a little past the size) or
   * has already rotated it.
   */
  #rotate(incoming: number): void {
    const lock = tryLock(join(this.folder, ROTATION_LOCK), { staleMs: STALE_ROTATION_LOCK_MS });
    if (lock === undefined) return;
    try {
      const size = sizeOf(this.file);
      if (size === undefined || size === 0 || size + incoming <= this.#maxBytes) return;
      renameSync(this.file, join(this.folder, this.#freeRotatedName()));
    } finally {
      lock.release();
    }
  }

  /** A rotated name not yet taken (two rotations within a millisecond get `-1`, `-2`, …). */
  #freeRotatedName(): string {
    const time = this.#clock.now();
    for (let suffix = 0; ; suffix += 1) {
      const name = rotatedName(time, suffix);
      if (sizeOf(join(this.folder, name)) === undefined) return name;
    }
  }
}

function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The default `onError`: one line on stderr naming the folder and the system's reason. */
function reportOnStderr(folder: string): (error: unknown) => void {
  return (error) => {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `skillgate: audit events are not being written to ${folder} (${reason}); reported once until a write succeeds\n`,
    );
  };
}
