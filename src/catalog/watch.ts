import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describeError } from "../core/errors.js";
import { settledBefore } from "../core/file-stamps.js";
import { MAX_HASHED_FILES } from "../core/limits.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import type { Skill } from "../skill/skill.js";
import type { DiscoveryResult } from "./discover.js";

/** How often {@link watchCatalog} looks again unless told otherwise: once a second. */
export const DEFAULT_WATCH_INTERVAL_MS = 1_000;

/** What changed in the registered skills between two looks. Names are sorted. */
export interface CatalogChange {
  /** Skills registered now that were not before. */
  readonly added: readonly string[];
  /** Skills registered before that are not now. */
  readonly removed: readonly string[];
  /** Skills registered both times whose content hash (or folder, or source) changed. */
  readonly changed: readonly string[];
}

/** Options of {@link watchCatalog}. */
export interface CatalogWatchOptions {
  /** Milliseconds between looks (default {@link DEFAULT_WATCH_INTERVAL_MS}). */
  readonly intervalMs?: number;
  /** Told about every change; never about a look that found none. */
  readonly onChange: (change: CatalogChange) => void;
  /** Told when a look failed (a configuration file that became malformed); the watch goes on. */
  readonly onError?: (error: unknown) => void;
  /** The clock the racy-file rule reads (default `Date.now`). */
  readonly now?: () => number;
}

/** A running watch. */
export interface CatalogWatch {
  /** Looks now, outside the timer: reports (and returns) the change, if any. */
  check(): CatalogChange | undefined;
  /** Stops the timer; later looks never run. Safe to call twice. */
  stop(): void;
}

/** What one skill folder looked like at the last look, so its hash is recomputed only when it moved. */
interface FolderState {
  readonly stamp: string;
  /** False when an entry changed so recently that its stamp cannot be trusted (core/file-stamps.ts). */
  readonly settled: boolean;
  readonly hash: string | undefined;
}

/**
 * Re-runs discovery every `intervalMs` and calls `onChange` when the registered skills or
 * any one's content hash changed. Discovery of an unchanged tree is cheap (its decisions
 * are reused); a skill's hash is recomputed only when the stamps of its files (inode,
 * size, modification and change times of every entry) moved, or when an entry changed
 * within the racy window of the last look. The cost of a quiet look is one discovery
 * plus one `lstat` per file of each registered skill. The timer is `unref()`ed: a watch
 * never keeps a process alive. The first look happens at once, setting the baseline
 * without reporting it.
 */
export function watchCatalog(discover: () => DiscoveryResult, options: CatalogWatchOptions): CatalogWatch {
  const now = options.now ?? Date.now;
  const folders = new Map<string, FolderState>();
  let last: Map<string, string> | undefined;
  let stopped = false;

  const look = (): CatalogChange | undefined => {
    if (stopped) return undefined;
    let skills: readonly Skill[];
    try {
      skills = discover().skills;
    } catch (error) {
      options.onError?.(error);
      return undefined;
    }
    const current = new Map<string, string>();
    const seenFolders = new Set<string>();
    for (const skill of skills) {
      if (skill.directory !== undefined) seenFolders.add(skill.directory);
      current.set(skill.name, signature(skill, folders, now));
    }
    for (const folder of folders.keys()) if (!seenFolders.has(folder)) folders.delete(folder);
    const previous = last;
    last = current;
    if (previous === undefined) return undefined;
    const change = difference(previous, current);
    if (change.added.length + change.removed.length + change.changed.length === 0) return undefined;
    try {
      options.onChange(change);
    } catch (error) {
      options.onError?.(error);
    }
    return change;
  };

  look();
  const timer = setInterval(look, Math.max(10, options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS));
  timer.unref();
  return {
    check: look,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** What identifies a skill's version: where it comes from and its content hash. */
function signature(skill: Skill, folders: Map<string, FolderState>, now: () => number): string {
  if (skill.directory === undefined) return `${skill.source}\0-\0${skill.description}`;
  const before = folders.get(skill.directory);
  const lookedAt = now();
  const stamped = folderStamp(skill.directory, lookedAt);
  const state: FolderState =
    before?.settled && before.stamp === stamped.stamp
      ? before
      : { ...stamped, hash: hashSkillFolder(skill.directory).hash };
  folders.set(skill.directory, state);
  return `${skill.source}\0${skill.directory}\0${state.hash ?? "unhashable"}`;
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
