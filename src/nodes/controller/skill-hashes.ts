import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { settledBefore } from "../../core/file-stamps.js";
import { MAX_HASHED_FILES } from "../../core/limits.js";
import { hashSkillFolder } from "../../skill/content-hash.js";

interface Kept {
  readonly stamp: string;
  readonly settled: boolean;
  readonly hash: string | undefined;
}

/**
 * Skills' content hashes for the controller, kept while every entry's stamp (inode, size,
 * modification and change times) is unchanged and settled (core/file-stamps.ts), so a
 * heartbeat or a manifest over 200 skills costs a walk of `lstat`s, not a read of every file.
 * Only what the manifest lists and which packages may be fetched depends on it: a package is
 * built from a verified snapshot, hashed again, and the agent hashes its copy once more.
 */
export class SkillHashes {
  readonly #kept = new Map<string, Kept>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The content hash of `folder` now, or undefined when it cannot be hashed. */
  hashOf(folder: string): string | undefined {
    const readAt = this.#now();
    const stamped = stampOf(folder, readAt);
    const kept = this.#kept.get(folder);
    if (stamped !== undefined && kept?.settled === true && kept.stamp === stamped.stamp) return kept.hash;
    const hash = hashSkillFolder(folder).hash;
    if (stamped !== undefined)
      this.#kept.set(folder, { stamp: stamped.stamp, settled: stamped.settled, hash });
    else this.#kept.delete(folder);
    return hash;
  }
}

/** Every entry's stamp under `folder`, sorted, and whether all are settled; undefined when it cannot be walked. */
function stampOf(folder: string, readAt: number): { stamp: string; settled: boolean } | undefined {
  const parts: string[] = [];
  let settled = true;
  const walk = (relative: string): boolean => {
    const absolute = relative === "" ? folder : join(folder, relative);
    const stats = lstatSync(absolute, { throwIfNoEntry: false });
    if (stats === undefined) return false;
    if (!settledBefore(stats, readAt)) settled = false;
    parts.push(`${relative}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.mode}`);
    if (parts.length > MAX_HASHED_FILES) return false;
    if (!stats.isDirectory()) return true;
    for (const name of readdirSync(absolute).sort())
      if (!walk(relative === "" ? name : join(relative, name))) return false;
    return true;
  };
  try {
    return walk("") ? { stamp: parts.join("\n"), settled } : undefined;
  } catch {
    return undefined;
  }
}
