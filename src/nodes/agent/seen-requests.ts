import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";

/** How many request ids the agent remembers; the oldest are forgotten first. */
export const SEEN_REQUESTS_KEPT = 4096;

/** The longest request id the agent accepts (a UUID is 36 characters). */
export const MAX_REQUEST_ID_LENGTH = 128;

/** The file, inside the agent's folder, that holds the ids of runs it was sent. */
export const SEEN_REQUESTS_FILE = "seen-requests.json";

/**
 * The ids of every run the agent was sent, kept in `<agent folder>/seen-requests.json` and
 * written (atomically) before a run starts, so a run is never started twice for one id: not
 * for a replayed message, and not after the agent was killed mid-run and restarted. Bounded
 * to {@link SEEN_REQUESTS_KEPT} ids, oldest forgotten first; the controller makes a fresh id
 * for every run and never re-sends one, so only a replay ever hits this.
 */
export class SeenRequests {
  readonly #file: string;
  readonly #kept: number;
  readonly #order: string[];
  readonly #ids: Set<string>;

  constructor(agentFolder: string, kept: number = SEEN_REQUESTS_KEPT) {
    mkdirSync(agentFolder, { recursive: true, mode: 0o700 });
    this.#file = join(agentFolder, SEEN_REQUESTS_FILE);
    this.#kept = kept;
    this.#order = readIds(this.#file).slice(-kept);
    this.#ids = new Set(this.#order);
  }

  /** Whether `requestId` was recorded before (in this process or an earlier one). */
  has(requestId: string): boolean {
    return this.#ids.has(requestId);
  }

  /**
   * Records `requestId` durably. Returns false, recording nothing, when it was seen before.
   * Throws when the file cannot be written: a run whose id is not on disk must not start.
   */
  record(requestId: string): boolean {
    if (this.#ids.has(requestId)) return false;
    this.#order.push(requestId);
    this.#ids.add(requestId);
    while (this.#order.length > this.#kept) {
      const oldest = this.#order.shift();
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
    writeFileAtomicallySync(this.#file, `${JSON.stringify(this.#order)}\n`);
    return true;
  }
}

/** The ids in the file; a missing, oversized or malformed file holds none. */
function readIds(file: string): string[] {
  const text = readSmallFile(file, (MAX_REQUEST_ID_LENGTH + 4) * SEEN_REQUESTS_KEPT + 16);
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((id): id is string => typeof id === "string" && id.length <= MAX_REQUEST_ID_LENGTH);
  } catch {
    return [];
  }
}
