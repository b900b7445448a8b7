import type { Stats } from "node:fs";
import { settledBefore } from "../core/file-stamps.js";
import type { LoadedSkill } from "../skill/load-skill.js";

/** Numbers kept per file: inode, size, modification and change times, and the clock before the read. */
const STAMPS = 5;

/** One run's files in the order the walk found them: folder (parent path and name), load, version. */
class FileList {
  readonly parents: string[] = [];
  readonly names: string[] = [];
  readonly loads: LoadedSkill[] = [];
  stamps = new Float64Array(STAMPS * 64);

  get length(): number {
    return this.names.length;
  }

  push(parent: string, name: string, loaded: LoadedSkill): number {
    const at = this.names.length * STAMPS;
    this.parents.push(parent);
    this.names.push(name);
    this.loads.push(loaded);
    if (at + STAMPS > this.stamps.length) {
      const grown = new Float64Array(this.stamps.length * 2);
      grown.set(this.stamps);
      this.stamps = grown;
    }
    return at;
  }
}

/**
 * The parsed SKILL.md files of one source with the file version each was read from, kept
 * from one discovery run to the next. A walk visits folders in the same order every run,
 * so a file is looked for first where it was last time: a repeat compares two short
 * strings a skill instead of hashing a path, and a first run only appends to lists (no
 * map, no object or boxed number per file; versions sit in one array of numbers). A folder
 * found out of order (something was added or removed) is looked up in an index built
 * then. Files no run visits any more are dropped when the run ends.
 */
export class LoadCache {
  /** The last finished run's files. */
  #last = new FileList();
  /** The files of the run in progress. */
  #next = new FileList();
  /** Where the next file is expected in the last run's list. */
  #cursor = 0;
  /** Positions in the last run's list by folder, built on the first lookup out of order. */
  #index: Map<string, Map<string, number>> | undefined;

  /** Starts a run (dropping what an unfinished one left). */
  start(): void {
    this.#next = new FileList();
    this.#cursor = 0;
  }

  /** Where the folder `parent + name` was in the last run, or -1 when it was not there. */
  find(parent: string, name: string): number {
    const last = this.#last;
    const cursor = this.#cursor;
    if (cursor < last.length && last.names[cursor] === name && last.parents[cursor] === parent) {
      this.#cursor = cursor + 1;
      return cursor;
    }
    if (last.length === 0) return -1;
    const position = this.#lastIndex().get(parent)?.get(name);
    if (position === undefined) return -1;
    this.#cursor = position + 1;
    return position;
  }

  /**
   * Carries the load found at `position` into this run when `stats` (the file's current
   * `lstat`) show the version it was read from, and that version was settled when it was
   * read (see core/file-stamps.ts); returns it, or undefined when the file must be read again.
   */
  keepIfUnchanged(position: number, stats: Stats): LoadedSkill | undefined {
    const last = this.#last;
    const stamps = last.stamps;
    const at = position * STAMPS;
    if (
      !stats.isFile() ||
      stats.ino !== stamps[at] ||
      stats.size !== stamps[at + 1] ||
      stats.mtimeMs !== stamps[at + 2] ||
      stats.ctimeMs !== stamps[at + 3] ||
      !settledBefore(stats, stamps[at + 4] as number)
    ) {
      return undefined;
    }
    const loaded = last.loads[position] as LoadedSkill;
    const to = this.#next.push(last.parents[position] as string, last.names[position] as string, loaded);
    this.#next.stamps.set(stamps.subarray(at, at + STAMPS), to);
    return loaded;
  }

  /** Keeps `loaded` for the folder `parent + name`, read from the version `stats` describe with the clock at `readAt` before the read. */
  add(parent: string, name: string, loaded: LoadedSkill, stats: Stats, readAt: number): void {
    const next = this.#next;
    const at = next.push(parent, name, loaded);
    const stamps = next.stamps;
    stamps[at] = stats.ino;
    stamps[at + 1] = stats.size;
    stamps[at + 2] = stats.mtimeMs;
    stamps[at + 3] = stats.ctimeMs;
    stamps[at + 4] = readAt;
  }

  /** Ends a run: what it kept and added is what the next run looks for. */
  finish(): void {
    this.#last = this.#next;
    this.#next = new FileList();
    this.#cursor = 0;
    this.#index = undefined;
  }

  #lastIndex(): Map<string, Map<string, number>> {
    if (this.#index !== undefined) return this.#index;
    const index = new Map<string, Map<string, number>>();
    const last = this.#last;
    for (let position = 0; position < last.length; position += 1) {
      const parent = last.parents[position] as string;
      let folder = index.get(parent);
      if (folder === undefined) {
        folder = new Map<string, number>();
        index.set(parent, folder);
      }
      // The first place wins, as a lookup in order would find it.
      if (!folder.has(last.names[position] as string)) folder.set(last.names[position] as string, position);
    }
    this.#index = index;
    return index;
  }
}
