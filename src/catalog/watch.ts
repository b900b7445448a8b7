import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { onFolderWrite } from "../core/folder-writes.js";
import type { Catalog } from "./catalog.js";
import type { DiscoveryResult } from "./discover.js";
import type { CatalogRevision } from "./revision.js";
import { type CatalogChange, SkillSignatures } from "./skill-signatures.js";
import { TreeWatch, type WatchFolder } from "./tree-watch.js";

export type { CatalogChange } from "./skill-signatures.js";
export type { WatchFolder } from "./tree-watch.js";

/**
 * The slow re-check's interval while notifications do not cover every searched folder (a
 * file system without them, the inotify watch limit): every 30 s. While they do, it runs
 * {@link COMPLETE_WATCH_FACTOR} times less often, as a safety net for lost events.
 */
export const DEFAULT_WATCH_INTERVAL_MS = 30_000;

/** How many times longer the re-check waits while notifications cover everything. */
export const COMPLETE_WATCH_FACTOR = 10;

/** The re-check never takes more than 1/this of a core: it waits at least this many times its own last cost. */
const RECHECK_COST_FACTOR = 100;

/** How long after a notification the watch waits for more before it looks at what changed. */
export const DEFAULT_SETTLE_MS = 100;

/**
 * How many folders the watch places (one `fs.watch` and one `readdir` each), or skills it
 * stamps for their first version, per slice of the event loop: a few tens of milliseconds,
 * so a call waits at most that long for one.
 */
export const DEFAULT_WATCHES_PER_SLICE = 500;

/** Options of {@link Catalog.watch}. */
export interface CatalogWatchOptions {
  /** The re-check's interval while notifications are incomplete (default {@link DEFAULT_WATCH_INTERVAL_MS}). */
  readonly intervalMs?: number;
  /** Told about every change of the registered skills or their hashes; never about a look that found none. */
  readonly onChange?: (change: CatalogChange) => void;
  /** Told when a look failed (a configuration file that became malformed); the watch goes on. */
  readonly onError?: (error: unknown) => void;
  /** Told, once per reason, when notifications do not cover every searched folder; the re-check covers the rest. */
  readonly onIncomplete?: (reason: string) => void;
  /** False: no file-system notifications at all, only the re-check (default true). */
  readonly notifications?: boolean;
  /** Milliseconds to wait after a notification before looking at what changed (default {@link DEFAULT_SETTLE_MS}). */
  readonly settleMs?: number;
  /** Folders watched (or skills stamped) per slice of the event loop (default {@link DEFAULT_WATCHES_PER_SLICE}); the first slice runs at once. */
  readonly watchesPerSlice?: number;
  /** Folders watched at most (default tree-watch.ts's 100,000). */
  readonly maxWatchedFolders?: number;
  /** The system call that watches one folder (default `fs.watch`; tests pass one that fails). */
  readonly watchFolder?: WatchFolder;
  /** The clock the racy-file rule reads (default `Date.now`). */
  readonly now?: () => number;
}

/** What a running watch covers, for logs and `doctor`. */
export interface CatalogWatchStatus {
  /**
   * `complete`: every searched folder is watched; `placing`: watches are still being placed
   * (every call looks at the tree meanwhile); `incomplete`: some folders cannot be watched
   * (see `reasons`); `off`: none.
   */
  readonly notifications: "complete" | "placing" | "incomplete" | "off";
  readonly reasons: readonly string[];
  /** Folders with a notification watch. */
  readonly watchedFolders: number;
  /** Folders known and not watched yet (0 once placing is done). */
  readonly pendingFolders: number;
  /** Milliseconds until the next re-check is due, at most (the interval in force). */
  readonly recheckMs: number;
}

/** A running watch. */
export interface CatalogWatch {
  /**
   * True while watches are still being placed: notifications do not cover the tree yet, so
   * the catalog looks at the tree on every call (as without a watch) until it is false.
   */
  readonly placing: boolean;
  /**
   * Resolves once start-up's work is done: no watch left to place, and every skill's first
   * version stamped (at once when nothing is left); also when the watch stops.
   */
  readonly ready: Promise<void>;
  /** The full re-check, now, outside its timer: reports (and returns) the change, if any. */
  check(): CatalogChange | undefined;
  status(): CatalogWatchStatus;
  /** Stops watching; the catalog goes back to a look per call once no watch is left. Safe to call twice. */
  stop(): void;
}

/** What a watch needs from its catalog (catalog.ts). */
export interface WatchedCatalog {
  readonly revision: CatalogRevision;
  /** The result for the current revision (discovery runs again only when it moved). */
  current(): DiscoveryResult;
  /** Discovery now, whatever the revision; the catalog keeps it and moves the revision when it differs. */
  recheck(): DiscoveryResult;
  /** The searched folders (watched as trees) and the project roots (watched shallowly, for packages). */
  watchPlan(result: DiscoveryResult): { trees: string[]; shallow: string[] };
}

/**
 * Keeps `catalog` current by file-system notifications: a change under a searched folder (or
 * a store write in this process) moves the revision at once, so the next call looks again;
 * `settleMs` later the watch looks at what changed and tells `onChange`, stamping only the
 * skills the notified paths touch. A slow full re-check covers what notifications cannot:
 * every `intervalMs` while they are incomplete, {@link COMPLETE_WATCH_FACTOR} times less
 * often while they are complete, and never more often than 100 times its own last cost. The
 * first look happens at once, setting the baseline without reporting it and without reading
 * a file (skill-signatures.ts). Watches are placed a slice at a time
 * ({@link DEFAULT_WATCHES_PER_SLICE} folders, the first slice at once), so a large catalog's
 * first calls are answered while they are placed; meanwhile every call looks at the tree, and
 * the revision moves when the last is placed. Then, slice by slice, each skill's first
 * version is stamped: after its folders are watched, so a change from then on has a
 * notification. Timers are `unref()`ed and watches never keep a process alive.
 */
export function startCatalogWatch(catalog: WatchedCatalog, options: CatalogWatchOptions = {}): CatalogWatch {
  const signatures = new SkillSignatures(options.now);
  const baseInterval = Math.max(10, options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS);
  const settleMs = Math.max(0, options.settleMs ?? DEFAULT_SETTLE_MS);
  const watchesPerSlice = Math.max(1, options.watchesPerSlice ?? DEFAULT_WATCHES_PER_SLICE);
  let sliceTimer: NodeJS.Timeout | undefined;
  let placing = false;
  /** Folders watched when the current placing began: more at its end moves the revision. */
  let foldersBefore = 0;
  let readyWaiters: (() => void)[] = [];
  let changedPaths = new Set<string>();
  let settleTimer: NodeJS.Timeout | undefined;
  let recheckTimer: NodeJS.Timeout | undefined;
  let recheckMs = baseInterval;
  let lastRecheckCost = 0;
  let watchedRoots: readonly string[] = [];
  let stopped = false;

  const report = (change: CatalogChange | undefined): CatalogChange | undefined => {
    if (change === undefined) return undefined;
    try {
      options.onChange?.(change);
    } catch (error) {
      options.onError?.(error);
    }
    return change;
  };

  const tree =
    options.notifications === false
      ? undefined
      : new TreeWatch({
          onChange: (path) => changed(path, "notification"),
          ...(options.onIncomplete !== undefined ? { onIncomplete: options.onIncomplete } : {}),
          ...(options.maxWatchedFolders !== undefined ? { maxFolders: options.maxWatchedFolders } : {}),
          ...(options.watchFolder !== undefined ? { watchFolder: options.watchFolder } : {}),
        });

  /**
   * Watches what `result` searched: the first slice now, the rest in later slices. Discovery
   * ran before the new watches were set, so a change made in between would have no
   * notification: while watches are pending every call looks at the tree (`placing`), and
   * when the last is placed the revision moves, so the next call looks again.
   */
  const plan = (result: DiscoveryResult): void => {
    const { trees, shallow } = catalog.watchPlan(result);
    watchedRoots = trees;
    if (tree === undefined) return;
    if (!placing) foldersBefore = tree.status().folders;
    tree.setRoots(trees, shallow);
    placing = true;
    if (sliceTimer === undefined) slice(false);
  };

  /**
   * One slice of start-up's work: watches to place first, then first versions to stamp.
   * Schedules the next slice while work is left; the revision moves when the last watch of a
   * placing is set and folders were added. `later`: run from its own timer, not from within
   * a look (whose caller schedules the re-check itself).
   */
  const slice = (later: boolean): void => {
    sliceTimer = undefined;
    if (stopped) return;
    if (placing) {
      if (tree !== undefined && tree.placeWatches(watchesPerSlice) > 0) {
        nextSlice();
        return;
      }
      placing = false;
      if (tree !== undefined && tree.status().folders > foldersBefore) catalog.revision.bump("watches added");
      // Placed in later slices, after the re-check was scheduled as for incomplete notifications:
      // schedule it again, for complete ones when they are.
      if (later && recheckTimer !== undefined) {
        clearTimeout(recheckTimer);
        scheduleRecheck();
      }
    }
    if (signatures.stampSome(watchesPerSlice) > 0) {
      nextSlice();
      return;
    }
    settleReady();
  };

  // A timer, not setImmediate: an unref()ed immediate does not wake a loop waiting for input,
  // so on an idle server the slices would wait for the next request.
  const nextSlice = (): void => {
    sliceTimer = setTimeout(slice, 0, true);
    sliceTimer.unref();
  };

  const settleReady = (): void => {
    const waiters = readyWaiters;
    readyWaiters = [];
    for (const resolve of waiters) resolve();
  };

  /** A notification or a store write: the revision moves now; what changed is looked at soon. */
  const changed = (path: string, reason: string): void => {
    if (stopped) return;
    catalog.revision.bump(reason);
    changedPaths.add(path);
    if (settleTimer !== undefined) return;
    settleTimer = setTimeout(settle, settleMs);
    settleTimer.unref();
  };

  const settle = (): void => {
    settleTimer = undefined;
    if (stopped) return;
    const paths = changedPaths;
    changedPaths = new Set();
    try {
      const result = catalog.current();
      plan(result);
      report(signatures.look(result.skills, paths));
    } catch (error) {
      options.onError?.(error);
    }
  };

  const recheck = (): CatalogChange | undefined => {
    if (stopped) return undefined;
    const started = performance.now();
    try {
      const result = catalog.recheck();
      plan(result);
      return report(signatures.look(result.skills, "all"));
    } catch (error) {
      options.onError?.(error);
      return undefined;
    } finally {
      lastRecheckCost = performance.now() - started;
    }
  };

  const scheduleRecheck = (): void => {
    if (stopped) return;
    const complete = tree?.status().complete === true;
    recheckMs = Math.max(
      complete ? baseInterval * COMPLETE_WATCH_FACTOR : baseInterval,
      lastRecheckCost * RECHECK_COST_FACTOR,
    );
    recheckTimer = setTimeout(() => {
      recheck();
      scheduleRecheck();
    }, recheckMs);
    recheckTimer.unref();
  };

  // A store write in this process moves the revision before the write resolves (core/folder-writes.ts).
  const stopWrites = onFolderWrite((folder) => {
    const inside = watchedRoots.some(
      (root) => folder === root || folder.startsWith(root + sep) || root.startsWith(folder + sep),
    );
    if (inside) changed(folder, "store write");
  });

  try {
    const first = catalog.current();
    signatures.look(first.skills, "all");
    plan(first);
  } catch (error) {
    options.onError?.(error);
  }
  if (sliceTimer === undefined && !placing) slice(false);
  scheduleRecheck();

  return {
    get placing() {
      return placing;
    },
    get ready() {
      if (sliceTimer === undefined || stopped) return Promise.resolve();
      return new Promise<void>((resolve) => readyWaiters.push(resolve));
    },
    check: () => {
      const change = recheck();
      clearTimeout(recheckTimer);
      scheduleRecheck();
      return change;
    },
    status: () => {
      const watched = tree?.status();
      const notifications =
        watched === undefined
          ? "off"
          : watched.complete
            ? "complete"
            : watched.reasons.length === 0
              ? "placing"
              : "incomplete";
      return {
        notifications,
        reasons: watched === undefined ? ["notifications are off"] : watched.reasons,
        watchedFolders: watched?.folders ?? 0,
        pendingFolders: watched?.pending ?? 0,
        recheckMs,
      };
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      placing = false;
      clearTimeout(sliceTimer);
      sliceTimer = undefined;
      settleReady();
      clearTimeout(settleTimer);
      clearTimeout(recheckTimer);
      stopWrites();
      tree?.close();
    },
  };
}

/** A project root's folders that say which packages are installed: the root, `node_modules` and its `@scope` folders. */
export function packageFoldersOf(root: string): string[] {
  const modules = join(root, "node_modules");
  const folders = [root, modules];
  try {
    for (const entry of readdirSync(modules, { withFileTypes: true }))
      if (entry.isDirectory() && entry.name.startsWith("@")) folders.push(join(modules, entry.name));
  } catch {
    // No node_modules yet: the shallow watch of the root sees it appear.
  }
  return folders;
}

/** Starts keeping `catalog` by revision: the same as `catalog.watch(options)` (see {@link startCatalogWatch}). */
export function watchCatalog(catalog: Catalog, options: CatalogWatchOptions = {}): CatalogWatch {
  return catalog.watch(options);
}
