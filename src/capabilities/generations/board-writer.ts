import type { GenerationRecord } from "./generation.js";
import { publishGenerations } from "./generation-board.js";

/**
 * Writes one skill's records to the generation board, one write at a time and only the newest
 * list: the board never ends on an older list, and a slow disk (each write is flushed) does not
 * queue one write per reload step. A failed write is dropped; the next change writes again.
 */
export class BoardWriter {
  readonly #folder: string;
  #writes: Promise<void> = Promise.resolve();
  #queued: { readonly skill: string; readonly records: readonly GenerationRecord[] } | undefined;

  constructor(folder: string) {
    this.#folder = folder;
  }

  /** Asks for `records` to become `skill`'s file; replaces a list not written yet. */
  write(skill: string, records: readonly GenerationRecord[]): void {
    const pending = this.#queued !== undefined;
    this.#queued = { skill, records };
    if (pending) return;
    this.#writes = this.#writes.then(async () => {
      const next = this.#queued;
      this.#queued = undefined;
      if (next !== undefined)
        await publishGenerations(this.#folder, next.skill, next.records).catch(() => undefined);
    });
  }

  /** Resolves once every asked write has ended. */
  settled(): Promise<void> {
    return this.#writes;
  }
}
