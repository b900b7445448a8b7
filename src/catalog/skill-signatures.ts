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

/**
 * What one skill folder looked like when it was last stamped. `hash` is absent while the
 * stamps have not moved since the first stamp: the skill is still at its first version, and
 * its content is hashed only once they move (a notification pointed there, or the re-check
 * saw it).
 */
interface FolderState {
  readonly stamp: string;
  /** False when an entry changed so recently that its stamp cannot be trusted (core/file-stamps.ts). */
  readonly settled: boolean;
  /** The content hash; `undefined` while not needed, `null` when the folder cannot be hashed. */
  readonly hash: string | null | undefined;
}

/**
 * Which paths changed since the last look: `all` (a full re-check), or the paths
 * notifications named. A skill is looked at again when a named path is its folder, inside
 * it, or one of its parents (a folder of skills renamed or replaced).
 */
export type ChangedPaths = "all" | ReadonlySet<string>;

/**
 * The version of every registered skill (its source, folder and content), kept from one look
 * to the next so a look reports what was added, removed or changed. Nothing is hashed to
 * start: the first look reads no file, it only records the skills (their first version), and
 * {@link stampSome} then records each first version's file stamps (inode, size, modification
 * and change times of every entry), a slice at a time, off any call's path (at 10,000 skills
 * hashing every skill took seconds at start-up). A skill is hashed only when its stamps moved
 * (or an entry changed within the racy window of its last stamp), or when a notification
 * points into it before its first stamp was recorded: its first move is therefore reported
 * as a change even when the content came back the same (a `touch`), later moves only when
 * the hash differs. With {@link ChangedPaths} naming paths, only skills those paths touch
 * are stamped at all, so a look after one notification costs one folder, not the catalog.
 */
export class SkillSignatures {
  readonly #now: () => number;
  readonly #folders = new Map<string, FolderState>();
  /** Skill folders at their first version whose stamps are not recorded yet, with their skill. */
  readonly #unstamped = new Map<string, Skill>();
  #last: Map<string, string> | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Records the versions of `skills`; returns what changed since the last look (undefined on
   * the first look, which sets the baseline without reading a file, and when nothing changed).
   */
  look(skills: readonly Skill[], changed: ChangedPaths): CatalogChange | undefined {
    const previous = this.#last;
    if (previous === undefined) {
      this.#last = this.#baseline(skills);
      return undefined;
    }
    const current = new Map<string, string>();
    const seenFolders = new Set<string>();
    for (const skill of skills) {
      if (skill.directory !== undefined) seenFolders.add(skill.directory);
      const before = previous.get(skill.name);
      const touched =
        changed === "all" || (skill.directory !== undefined && touches(changed, skill.directory));
      const reuse =
        before !== undefined &&
        !touched &&
        skill.directory !== undefined &&
        (this.#unstamped.has(skill.directory) || this.#folders.get(skill.directory)?.settled === true) &&
        before === versionOf(skill, this.#folders.get(skill.directory));
      if (reuse) {
        current.set(skill.name, before);
        continue;
      }
      const first = before === versionOf(skill, undefined) && this.#unstamped.has(skill.directory ?? "");
      const version = this.#signature(skill, changed !== "all");
      // The re-check reaching a first version before its stamps were recorded records them (or,
      // within the racy window, its hash) as that first version: nothing to report.
      if (first && changed === "all") previous.set(skill.name, version);
      current.set(skill.name, version);
    }
    for (const folder of this.#folders.keys()) if (!seenFolders.has(folder)) this.#folders.delete(folder);
    for (const folder of this.#unstamped.keys()) if (!seenFolders.has(folder)) this.#unstamped.delete(folder);
    this.#last = current;
    const change = difference(previous, current);
    return change.added.length + change.removed.length + change.changed.length === 0 ? undefined : change;
  }

  /**
   * Records the stamps of up to `budget` first versions; returns how many are still
   * unstamped. A folder changed within the racy window cannot be known by its stamps: it is
   * hashed now, and the hash becomes its first version.
   */
  stampSome(budget: number): number {
    let stamped = 0;
    for (const [folder, skill] of this.#unstamped) {
      if (stamped >= budget) break;
      this.#unstamped.delete(folder);
      stamped += 1;
      const stamp = folderStamp(folder, this.#now());
      if (stamp.settled) {
        this.#folders.set(folder, { ...stamp, hash: undefined });
        continue;
      }
      const state: FolderState = { ...stamp, hash: hashSkillFolder(folder).hash ?? null };
      this.#folders.set(folder, state);
      if (this.#last?.get(skill.name) === versionOf(skill, undefined))
        this.#last.set(skill.name, versionOf(skill, state));
    }
    return this.#unstamped.size;
  }

  /** True when some skill folder changed within the racy window of its last look: look again soon. */
  unsettled(): boolean {
    for (const state of this.#folders.values()) if (!state.settled) return true;
    return false;
  }

  /** The first look: every skill at its first version, its stamps left to {@link stampSome}. */
  #baseline(skills: readonly Skill[]): Map<string, string> {
    const versions = new Map<string, string>();
    for (const skill of skills) {
      if (skill.directory !== undefined && !this.#folders.has(skill.directory))
        this.#unstamped.set(skill.directory, skill);
      versions.set(skill.name, versionOf(skill, undefined));
    }
    return versions;
  }

  /**
   * The skill's version now. A first version not stamped yet that a notification points into
   * (`notified`) is hashed: what changed is unknown, so it counts as changed; the re-check
   * (`notified` false) records its stamps as the first version's.
   */
  #signature(skill: Skill, notified: boolean): string {
    if (skill.directory === undefined) return versionOf(skill, undefined);
    const before = this.#folders.get(skill.directory);
    const first = this.#unstamped.delete(skill.directory);
    const stamped = folderStamp(skill.directory, this.#now());
    let state: FolderState;
    if (before?.settled && before.stamp === stamped.stamp) state = before;
    else if (before === undefined && stamped.settled && !(first && notified))
      state = { ...stamped, hash: undefined };
    else state = { ...stamped, hash: hashSkillFolder(skill.directory).hash ?? null };
    this.#folders.set(skill.directory, state);
    return versionOf(skill, state);
  }
}

/** What identifies a skill's version: where it comes from, and its content hash (`first` until one is needed). */
function versionOf(skill: Skill, state: FolderState | undefined): string {
  if (skill.directory === undefined) return `${skill.source}\0-\0${skill.description}`;
  const content = state?.hash === undefined ? "first" : (state.hash ?? "unhashable");
  return `${skill.source}\0${skill.directory}\0${content}`;
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
