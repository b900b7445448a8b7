import type { Stats } from "node:fs";
import type { LoadedSkill } from "../skill/load-skill.js";
import { settledBefore } from "./file-stamps.js";

/** Numbers kept per file: inode, size, modification and change times, and the clock before the read. */
const STAMPS = 5;

/**
 * The parsed SKILL.md files of one source, by folder, with the file version each was read
 * from. A catalog holds thousands, so a file costs one slot number in a map and five
 * numbers in one shared array, not an object and boxed numbers of its own; a freed slot
 * is used again. Folders are found by their parent's path and their name (as the walk
 * has them), so no long joined path is copied flat and hashed for every skill.
 */
export class LoadCache {
  /** Slots by parent path (ending with a separator, or empty for a root) and folder name. */
  readonly #slots = new Map<string, Map<string, number>>();
  #size = 0;
  readonly #loads: (LoadedSkill | undefined)[] = [];
  readonly #free: number[] = [];
  #stamps = new Float64Array(STAMPS * 64);

  /** Where the folder `parent + name` is kept, or -1 when it is not. */
  slotOf(parent: string, name: string): number {
    if (this.#size === 0) return -1;
    return this.#slots.get(parent)?.get(name) ?? -1;
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

  /**
   * Keeps `loaded` for the folder `parent + name`, which is not kept (slotOf gave -1, or
   * it was just deleted), read from the version `stats` describe with the clock at
   * `readAt` before the read.
   */
  add(parent: string, name: string, loaded: LoadedSkill, stats: Stats, readAt: number): void {
    let folder = this.#slots.get(parent);
    if (folder === undefined) {
      folder = new Map<string, number>();
      this.#slots.set(parent, folder);
    }
    const slot = this.#free.pop() ?? this.#loads.length;
    folder.set(name, slot);
    this.#size += 1;
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

  /** Forgets the folder `parent + name`. */
  delete(parent: string, name: string): void {
    const folder = this.#slots.get(parent);
    const slot = folder?.get(name);
    if (folder === undefined || slot === undefined) return;
    folder.delete(name);
    if (folder.size === 0) this.#slots.delete(parent);
    this.#size -= 1;
    this.#loads[slot] = undefined;
    this.#free.push(slot);
  }
}
