import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { type Clock, systemClock } from "../core/clock.js";
import { serialiseAuditEvent } from "./audit-line.js";
import { AUDIT_FILE, AUDIT_FOLDER, type AuditQuery, queryAuditFolder, rotatedName } from "./audit-read.js";
import type { AuditEvent, AuditSink } from "./events.js";

export { AUDIT_FILE, AUDIT_FOLDER } from "./audit-read.js";
/** Size past which the current file is rotated: 16 MiB. */
export const DEFAULT_AUDIT_MAX_BYTES = 16 * 1024 * 1024;
/** A rotation lock older than this was left by a process that died while rotating. */
const STALE_ROTATION_LOCK_MS = 60_000;
const ROTATION_LOCK = "audit.rotate.lock";

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
 * `O_APPEND`, so lines never interleave; the file is opened per event, so a process always
 * writes to the current file even after another rotated it. Writers never read the file (a
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

  #append(line: Buffer): void {
    let descriptor = this.#openCurrent();
    try {
      const size = fstatSync(descriptor).size;
      if (size > 0 && size + line.length > this.#maxBytes) {
        closeSync(descriptor);
        descriptor = -1;
        this.#rotate(line.length);
        descriptor = this.#openCurrent();
      }
      const written = writeSync(descriptor, line);
      if (written !== line.length)
        throw new Error(`short write to ${this.file}: ${written} of ${line.length} bytes`);
    } finally {
      if (descriptor >= 0) closeSync(descriptor);
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
    const lock = join(this.folder, ROTATION_LOCK);
    let lockDescriptor: number;
    try {
      lockDescriptor = openSync(lock, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !isStale(lock)) return;
      rmQuietly(lock);
      try {
        lockDescriptor = openSync(lock, "wx", 0o600);
      } catch {
        return;
      }
    }
    try {
      const size = sizeOf(this.file);
      if (size === undefined || size === 0 || size + incoming <= this.#maxBytes) return;
      renameSync(this.file, join(this.folder, this.#freeRotatedName()));
    } finally {
      closeSync(lockDescriptor);
      rmQuietly(lock);
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

/** Measured against the file system's own time, not the injectable clock. */
function isStale(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs > STALE_ROTATION_LOCK_MS;
  } catch {
    return false;
  }
}

function rmQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone: another process cleaned it up.
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
