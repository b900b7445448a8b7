import type { Stats } from "node:fs";
import type { LoadedSkill } from "../skill/load-skill.js";
import { settledBefore } from "./file-stamps.js";

/** Numbers kept per file: inode, size, modification and change times, and the clock before the read. */
const STAMPS = 5;

/**
 * The parsed SKILL.md files of one source, by path, with the file version each was read
 * from. A catalog holds thousands, so a file costs one slot number in a map and five
 * numbers in one shared array, not an object and boxed numbers of its own; a freed slot
 * is used again.
 */
export class LoadCache {
  readonly #slots = new Map<string, number>();
  readonly #loads: (LoadedSkill | undefined)[] = [];
  readonly #free: number[] = [];
  #stamps = new Float64Array(STAMPS * 64);

  /** Where `file` is kept, or -1 when it is not. */
  slotOf(file: string): number {
    return this.#slots.get(file) ?? -1;
  }

  /**
   * The load kept in `slot` when `stats` (the file's current `lstat`) show the version it
   * was read from, and that version was settled when it was read (see file-stamps.ts).
   */
  loadIfUnchanged(slot: number, stats: Stats): LoadedSkill | undefined {
    const stamps = this.#stamps;
    const at = slot * STAMPS;
    if (
      stats.isFile() &&
      stats.ino === stamps[at] &&
      stats.size === stamps[at + 1] &&
      stats.mtimeMs === stamps[at + 2] &&
      stats.ctimeMs === stamps[at + 3] &&
      settledBefore(stats, stamps[at + 4] as number)
    ) {
      return this.#loads[slot];
    }
    return undefined;
  }

  /** Keeps `loaded` for `file`, read from the version `stats` describe with the clock at `readAt` before the read. */
  set(file: string, loaded: LoadedSkill, stats: Stats, readAt: number): void {
    let slot = this.#slots.get(file);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#loads.length;
      this.#slots.set(file, slot);
    }
    if (slot === this.#loads.length) this.#loads.push(loaded);
    else this.#loads[slot] = loaded;
    if ((slot + 1) * STAMPS > this.#stamps.length) {
      const grown = new Float64Array(this.#stamps.length * 2);
      grown.set(this.#stamps);
      this.#stamps = grown;
    }
    const at = slot * STAMPS;
    this.#stamps[at] = stats.ino;
    this.#stamps[at + 1] = stats.size;
    this.#stamps[at + 2] = stats.mtimeMs;
    this.#stamps[at + 3] = stats.ctimeMs;
    this.#stamps[at + 4] = readAt;
  }

  /** Forgets `file`. */
  delete(file: string): void {
    const slot = this.#slots.get(file);
    if (slot === undefined) return;
    this.#slots.delete(file);
    this.#loads[slot] = undefined;
    this.#free.push(slot);
  }
}
