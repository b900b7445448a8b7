import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { describeError } from "../core/errors.js";
import { settledBefore } from "../core/file-stamps.js";
import { MAX_HASHED_FILES } from "../core/limits.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import type { Skill } from "../skill/skill.js";

/** What changed in the registered skills between two looks. Names are sorted. */
export interface CatalogChange {
  /** Skills registered now that were not before. */
  readonly added: readonly string[];
  /** Skills registered before that are not now. */
  readonly removed: readonly string[];
  /** Skills registered both times whose content hash (or folder, or source) changed. */
  readonly changed: readonly string[];
}

/** What one skill folder looked like at the last look, so its hash is recomputed only when it moved. */
interface FolderState {
  readonly stamp: string;
  /** False when an entry changed so recently that its stamp cannot be trusted (core/file-stamps.ts). */
  readonly settled: boolean;
  readonly hash: string | undefined;
}

/**
 * Which paths changed since the last look: `all` (a full re-check), or the paths
 * notifications named. A skill is looked at again when a named path is its folder, inside
 * it, or one of its parents (a folder of skills renamed or replaced).
 */
export type ChangedPaths = "all" | ReadonlySet<string>;

/**
 * The version of every registered skill (its source, folder and content hash), kept from one
 * look to the next so a look reports what was added, removed or changed. A skill's hash is
 * recomputed only when the stamps of its files (inode, size, modification and change times of
 * every entry) moved, or an entry changed within the racy window of the last look; and with
 * {@link ChangedPaths} naming paths, only skills those paths touch are stamped at all, so a
 * look after one notification costs one folder, not the catalog.
 */
export class SkillSignatures {
  readonly #now: () => number;
  readonly #folders = new Map<string, FolderState>();
  #last: Map<string, string> | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Records the versions of `skills`; returns what changed since the last look (undefined on
   * the first look, which sets the baseline, and when nothing changed).
   */
  look(skills: readonly Skill[], changed: ChangedPaths): CatalogChange | undefined {
    const previous = this.#last;
    const current = new Map<string, string>();
    const seenFolders = new Set<string>();
    for (const skill of skills) {
      if (skill.directory !== undefined) seenFolders.add(skill.directory);
      const before = previous?.get(skill.name);
      const reuse =
        before !== undefined &&
        changed !== "all" &&
        skill.directory !== undefined &&
        this.#folders.get(skill.directory)?.settled === true &&
        before === versionOf(skill, this.#folders.get(skill.directory)) &&
        !touches(changed, skill.directory);
      current.set(skill.name, reuse ? before : this.#signature(skill));
    }
    for (const folder of this.#folders.keys()) if (!seenFolders.has(folder)) this.#folders.delete(folder);
    this.#last = current;
    if (previous === undefined) return undefined;
    const change = difference(previous, current);
    return change.added.length + change.removed.length + change.changed.length === 0 ? undefined : change;
  }

  /** True when some skill folder changed within the racy window of its last look: look again soon. */
  unsettled(): boolean {
    for (const state of this.#folders.values()) if (!state.settled) return true;
    return false;
  }

  #signature(skill: Skill): string {
    if (skill.directory === undefined) return versionOf(skill, undefined);
    const before = this.#folders.get(skill.directory);
    const stamped = folderStamp(skill.directory, this.#now());
    const state: FolderState =
      before?.settled && before.stamp === stamped.stamp
        ? before
        : { ...stamped, hash: hashSkillFolder(skill.directory).hash };
    this.#folders.set(skill.directory, state);
    return versionOf(skill, state);
  }
}

/** What identifies a skill's version: where it comes from and its content hash. */
function versionOf(skill: Skill, state: FolderState | undefined): string {
  if (skill.directory === undefined) return `${skill.source}\0-\0${skill.description}`;
  return `${skill.source}\0${skill.directory}\0${state?.hash ?? "unhashable"}`;
}

/** True when a changed path is `folder`, inside it, or one of its parents. */
function touches(changed: ReadonlySet<string>, folder: string): boolean {
  for (let path = folder; ; path = dirname(path)) {
    if (changed.has(path)) return true;
    if (dirname(path) === path) break;
  }
  for (const path of changed) if (path.startsWith(folder) && path.charAt(folder.length) === sep) return true;
  return false;
}

/**
 * Every entry below a folder with its inode, size and times, in listing order made stable
 * by sorting. Stops adding entries past the hash's own file limit (the hash then fails
 * anyway, and a huge folder should not cost more here than there).
 */
function folderStamp(folder: string, lookedAt: number): { stamp: string; settled: boolean } {
  const parts: string[] = [];
  let settled = true;
  const visit = (relative: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(relative === "" ? folder : join(folder, relative), { withFileTypes: true });
    } catch (error) {
      parts.push(`!${relative}:${describeError(error)}`);
      return;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      if (parts.length > MAX_HASHED_FILES) return;
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      try {
        const stats = lstatSync(join(folder, path));
        if (!settledBefore(stats, lookedAt)) settled = false;
        parts.push(`${path}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`);
      } catch (error) {
        parts.push(`!${path}:${describeError(error)}`);
        continue;
      }
      if (entry.isDirectory()) visit(path);
    }
  };
  const root = (() => {
    try {
      const stats = lstatSync(folder);
      if (!settledBefore(stats, lookedAt)) settled = false;
      return `${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}`;
    } catch (error) {
      return `!${describeError(error)}`;
    }
  })();
  visit("");
  return { stamp: `${root}\n${parts.join("\n")}`, settled };
}

function difference(before: Map<string, string>, after: Map<string, string>): CatalogChange {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [name, version] of after) {
    const previous = before.get(name);
    if (previous === undefined) added.push(name);
    else if (previous !== version) changed.push(name);
  }
  for (const name of before.keys()) if (!after.has(name)) removed.push(name);
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort() };
}
