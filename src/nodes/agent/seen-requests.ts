import { closeSync, fdatasyncSync, fstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readSmallFile, syncFolderSync, writeFileAtomicallySync } from "../../core/durable-fs.js";

/** How many request ids the agent remembers; the oldest are forgotten first. */
export const SEEN_REQUESTS_KEPT = 4096;

/** The longest request id the agent accepts (a UUID is 36 characters). */
export const MAX_REQUEST_ID_LENGTH = 128;

/** The file, inside the agent's folder, that holds the ids of runs it was sent: one per line. */
export const SEEN_REQUESTS_FILE = "seen-requests.log";

/** A request id the journal can hold: printable ASCII without spaces (never a line break). */
const ID_SHAPE = /^[\x21-\x7e]+$/;

/**
 * The ids of every run the agent was sent, kept in `<agent folder>/seen-requests.log` and
 * made durable before a run starts, so a run is never started twice for one id: not for a
 * replayed message, and not after the agent was killed mid-run and restarted. Bounded to
 * {@link SEEN_REQUESTS_KEPT} ids, oldest forgotten first; the controller makes a fresh id for
 * every run and never re-sends one, so only a replay ever hits this.
 *
 * The file is a journal: each id is one appended line followed by one `fdatasync`, the least a
 * durable record costs (a whole-file atomic rewrite takes a second sync of the folder and
 * rewrites every id, on every run). When the journal holds twice the ids kept, it is rewritten
 * atomically with the newest ones. A line torn by a crash is ended before the next append and
 * read as no id.
 */
export class SeenRequests {
  readonly #file: string;
  readonly #kept: number;
  readonly #order: string[];
  readonly #ids: Set<string>;
  #lines: number;
  #descriptor: number | undefined;

  constructor(agentFolder: string, kept: number = SEEN_REQUESTS_KEPT) {
    mkdirSync(agentFolder, { recursive: true, mode: 0o700 });
    this.#file = join(agentFolder, SEEN_REQUESTS_FILE);
    this.#kept = kept;
    const lines = readLines(this.#file, kept);
    this.#lines = lines.length;
    this.#order = lines.filter(isRequestId).slice(-kept);
    this.#ids = new Set(this.#order);
  }

  /** Whether `requestId` was recorded before (in this process or an earlier one). */
  has(requestId: string): boolean {
    return this.#ids.has(requestId);
  }

  /**
   * Records `requestId` durably. Returns false, recording nothing, when it was seen before.
   * Throws when it cannot be written (or is not an id the journal can hold): a run whose id is
   * not on disk must not start.
   */
  record(requestId: string): boolean {
    if (this.#ids.has(requestId)) return false;
    if (!isRequestId(requestId)) throw new Error("a request id is printable ASCII without spaces");
    if (this.#lines + 1 > 2 * this.#kept) this.#compact();
    this.#append(`${requestId}\n`);
    this.#order.push(requestId);
    this.#ids.add(requestId);
    this.#lines += 1;
    while (this.#order.length > this.#kept) {
      const oldest = this.#order.shift();
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
    return true;
  }

  /** Closes the journal (a later record opens it again). */
  close(): void {
    if (this.#descriptor === undefined) return;
    closeSync(this.#descriptor);
    this.#descriptor = undefined;
  }

  #append(text: string): void {
    const descriptor = this.#open();
    try {
      const bytes = Buffer.from(text, "utf8");
      if (writeSync(descriptor, bytes) !== bytes.length) throw new Error(`short write to ${this.#file}`);
      fdatasyncSync(descriptor);
    } catch (error) {
      // Whatever happened to the held file, the next record opens it again.
      this.close();
      throw error;
    }
  }

  /** The journal open for appending; a new file's name is made durable, a torn last line ended. */
  #open(): number {
    if (this.#descriptor !== undefined) return this.#descriptor;
    const descriptor = openSync(this.#file, "a", 0o600);
    try {
      const size = fstatSync(descriptor).size;
      if (size === 0) syncFolderSync(join(this.#file, ".."));
      else if (!endsWithLineBreak(this.#file, size)) writeSync(descriptor, "\n");
    } catch (error) {
      closeSync(descriptor);
      throw error;
    }
    this.#descriptor = descriptor;
    return descriptor;
  }

  /** Rewrites the journal with the ids kept, atomically. */
  #compact(): void {
    this.close();
    const kept = this.#order.slice(-this.#kept);
    writeFileAtomicallySync(this.#file, kept.map((id) => `${id}\n`).join(""));
    this.#lines = kept.length;
  }
}

/** Whether `line` is a request id the agent accepts: 1 to {@link MAX_REQUEST_ID_LENGTH} printable ASCII characters, no spaces. */
export function isRequestId(line: string): boolean {
  return line.length > 0 && line.length <= MAX_REQUEST_ID_LENGTH && ID_SHAPE.test(line);
}

/** The journal's lines; a missing or oversized file holds none. */
function readLines(file: string, kept: number): string[] {
  const text = readSmallFile(file, (MAX_REQUEST_ID_LENGTH + 1) * kept * 2 + 4096);
  if (text === undefined) return [];
  const lines = text.split("\n");
  // The text after the last line break is a line torn by a crash, not an id.
  lines.pop();
  return lines;
}

function endsWithLineBreak(file: string, size: number): boolean {
  const text = readSmallFile(file, size + 1);
  return text === undefined || text.endsWith("\n");
}
