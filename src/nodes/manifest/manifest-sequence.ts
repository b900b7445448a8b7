import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Clock, systemClock } from "../../core/clock.js";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { SkillgateError } from "../../core/errors.js";

/**
 * The controller's manifest sequence, kept in `<data>/nodes/manifest-sequence` (decimal
 * text, written atomically on every issue) so it grows across restarts. Each new value is
 * above the last one and never below the clock in milliseconds: a sequence file lost or
 * restored from an old backup still gives sequences above what agents accepted (as long as
 * fewer than a thousand manifests a second were issued on average). Synchronous, so two
 * issues in one process never read the same value; one controller owns a data folder.
 */
export class ManifestSequence {
  /** `<data>/nodes/manifest-sequence`. */
  readonly path: string;
  readonly #clock: Clock;
  #last: number | undefined;

  constructor(dataFolder: string, clock: Clock = systemClock) {
    this.path = join(dataFolder, "nodes", "manifest-sequence");
    this.#clock = clock;
  }

  /** The last sequence issued (0 before the first). */
  current(): number {
    this.#last ??= this.#read();
    return this.#last;
  }

  /**
   * The next sequence, persisted before it is returned: a manifest is never signed with a
   * sequence a restart could issue again.
   *
   * @throws the write's error as it is (nothing is signed then)
   */
  next(): number {
    const value = Math.max(this.current() + 1, Math.floor(this.#clock.now()));
    mkdirSync(dirname(this.path), { recursive: true, mode: FOLDER_MODE });
    writeFileAtomicallySync(this.path, `${value}\n`);
    this.#last = value;
    return value;
  }

  #read(): number {
    const text = readSmallFile(this.path, 64);
    if (text === undefined) return 0;
    const value = Number(text.trim());
    if (!Number.isSafeInteger(value) || value < 0)
      throw new SkillgateError(
        "io_error",
        `${this.path} holds no sequence number; remove it to start again`,
        {
          path: this.path,
        },
      );
    return value;
  }
}
