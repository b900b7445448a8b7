import { type FSWatcher, lstatSync, readdirSync, statSync, watch } from "node:fs";
import { dirname, join, sep } from "node:path";
import { describeError } from "../core/errors.js";
import { SKIPPED_FOLDER_NAMES } from "./walk.js";

/**
 * Folder names never watched: the ones discovery skips (version control, dependencies: a
 * package is watched as its own source), so the watch and the walk agree on what is searched.
 */
const NOT_WATCHED: ReadonlySet<string> = new Set(SKIPPED_FOLDER_NAMES);

/** How many folders one process watches at most, unless told otherwise (each is one inotify watch). */
export const DEFAULT_MAX_WATCHED_FOLDERS = 100_000;

/** The system call that watches one folder: `fs.watch` (tests pass one that fails on purpose). */
export type WatchFolder = (
  folder: string,
  listener: (event: string, name: string | null) => void,
) => FSWatcher;

/** Options of {@link TreeWatch}. */
export interface TreeWatchOptions {
  /** Told the path of every change (a folder, or an entry in it); called synchronously from the event. */
  readonly onChange: (path: string) => void;
  /** Told when watching became incomplete (a limit, an error), once per reason. */
  readonly onIncomplete?: (reason: string) => void;
  /** Folders watched at most (default {@link DEFAULT_MAX_WATCHED_FOLDERS}). */
  readonly maxFolders?: number;
  readonly watchFolder?: WatchFolder;
}

/** What a {@link TreeWatch} covers, for logs and `doctor`. */
export interface TreeWatchStatus {
  /** True when every folder asked for is watched: a change anywhere in them is told at once. */
  readonly complete: boolean;
  /** Why not, when not: each reason once (`ENOSPC` from the inotify watch limit, the folder cap). */
  readonly reasons: readonly string[];
  readonly folders: number;
  /** Folders known and not watched yet ({@link TreeWatch.placeWatches} places them); their subfolders are not counted. */
  readonly pending: number;
}

/** A folder to watch, and how many levels below it to watch too. */
interface PendingFolder {
  readonly path: string;
  readonly depth: number;
}

const defaultWatchFolder: WatchFolder = (folder, listener) =>
  watch(folder, { persistent: false, encoding: "utf8" }, listener);

/**
 * Watches folder trees with one file-system notification per folder (`fs.watch`, inotify on
 * Linux), never by looking at files on a timer. A tree is every folder below its root except
 * `.git`, `.hg`, `.svn` and `node_modules`; a folder created later is watched as its event
 * arrives, and one removed is let go. A root that does not exist yet is waited for through
 * its nearest existing parent (that parent's direct entries only). A symlinked folder is not
 * followed: discovery follows only links that stay inside a searched root, which is watched
 * as its own tree. When a watch cannot be set (`ENOSPC`: the inotify watch limit; `EMFILE`;
 * the folder cap) the watch is incomplete: `status()` says why, `onIncomplete` is told, and
 * the caller's slow re-check covers what is not watched. Watches never keep a process alive.
 *
 * The trees of {@link setRoots} are not watched at once: their folders wait until the caller
 * places them with {@link placeWatches}, a slice at a time (at 10,000 skills there are about
 * 30,000 folders, seconds of work), so a caller can go on answering between slices. A folder
 * created later under a watched one is watched at once, with everything below it.
 */
export class TreeWatch {
  readonly #options: TreeWatchOptions;
  readonly #watchFolder: WatchFolder;
  readonly #maxFolders: number;
  /** Every watched folder of a tree, by path. */
  readonly #folders = new Map<string, FSWatcher>();
  /** Missing roots, by the existing parent watched for them. */
  readonly #waiting = new Map<string, { watcher: FSWatcher; roots: Set<string> }>();
  /** Each root, true for a tree, false for a shallow folder. */
  #roots = new Map<string, boolean>();
  readonly #reasons = new Set<string>();
  /** Folders of the roots' trees waiting for {@link placeWatches}, depth first. */
  #pending: PendingFolder[] = [];
  #closed = false;

  constructor(options: TreeWatchOptions) {
    this.#options = options;
    this.#watchFolder = options.watchFolder ?? defaultWatchFolder;
    this.#maxFolders = options.maxFolders ?? DEFAULT_MAX_WATCHED_FOLDERS;
  }

  /**
   * Watches exactly these trees (and `shallow` folders: their own entries only) from now on:
   * new roots are added, roots no longer listed are let go. Cheap when the lists are
   * unchanged (nothing is listed again). A new root that exists is pending until
   * {@link placeWatches} reaches it; one that does not is waited for at once.
   */
  setRoots(roots: readonly string[], shallow: readonly string[] = []): void {
    if (this.#closed) return;
    const next = new Map<string, boolean>();
    for (const root of shallow) next.set(root, false);
    for (const root of roots) next.set(root, true);
    const dropped = [...this.#roots.keys()].filter((root) => next.get(root) !== this.#roots.get(root));
    const added = [...next.keys()].filter((root) => next.get(root) !== this.#roots.get(root));
    this.#roots = next;
    for (const root of dropped) this.#forgetRoot(root);
    // Roots that overlap a dropped one may have lost folders: adding again skips what is watched.
    for (const root of dropped.length > 0 ? next.keys() : added) this.#addRoot(root);
  }

  /**
   * Watches up to `budget` pending folders (listing each for its subfolders, which become
   * pending in turn); returns how many are still pending (0: every folder asked for is
   * watched, or could not be).
   */
  placeWatches(budget: number): number {
    if (this.#closed) return 0;
    this.#place(this.#pending, budget);
    return this.#pending.length;
  }

  /** What is watched, and whether that is everything asked for. */
  status(): TreeWatchStatus {
    return {
      complete: this.#reasons.size === 0 && this.#pending.length === 0,
      reasons: [...this.#reasons],
      folders: this.#folders.size + this.#waiting.size,
      pending: this.#pending.length,
    };
  }

  /** Lets every folder go. Safe to call twice. */
  close(): void {
    this.#closed = true;
    for (const watcher of this.#folders.values()) watcher.close();
    for (const waiting of this.#waiting.values()) waiting.watcher.close();
    this.#folders.clear();
    this.#waiting.clear();
    this.#pending = [];
  }

  /** Watches `root` now, or (`now` false) makes it pending; a missing root is waited for in its parent. */
  #addRoot(root: string, now = false): void {
    const tree = this.#roots.get(root);
    if (tree === undefined) return;
    if (isFolderOrLinkToOne(root)) {
      const depth = tree ? Number.POSITIVE_INFINITY : 0;
      if (now) this.#addTree(root, depth);
      else this.#pending.push({ path: root, depth });
      return;
    }
    // Wait for it in the nearest parent that exists.
    let parent = dirname(root);
    while (parent !== dirname(parent) && !isFolder(parent)) parent = dirname(parent);
    const waiting = this.#waiting.get(parent);
    if (waiting !== undefined) {
      waiting.roots.add(root);
      return;
    }
    const watcher = this.#watch(parent, (name) => this.#parentChanged(parent, name));
    if (watcher !== undefined) this.#waiting.set(parent, { watcher, roots: new Set([root]) });
  }

  /** An entry of a parent some root waits in changed: the roots that exist now become trees. */
  #parentChanged(parent: string, name: string | undefined): void {
    const waiting = this.#waiting.get(parent);
    if (waiting === undefined) return;
    const prefix = name === undefined ? undefined : join(parent, name);
    const ready = [...waiting.roots].filter(
      (root) => prefix === undefined || root === prefix || root.startsWith(prefix + sep),
    );
    if (ready.length === 0) return;
    for (const root of ready) waiting.roots.delete(root);
    if (waiting.roots.size === 0) {
      waiting.watcher.close();
      this.#waiting.delete(parent);
    }
    for (const root of ready) {
      this.#options.onChange(root);
      // A root that appeared is watched now, as a folder created under a watched one is.
      this.#addRoot(root, true);
    }
  }

  /** Watches `folder` and the folders below it to `depth` levels, now (listing each once). */
  #addTree(folder: string, depth: number): void {
    this.#place([{ path: folder, depth }], Number.POSITIVE_INFINITY);
  }

  /** Watches folders from `pending` (and the folders below them) until it is empty or `budget` watches were tried. */
  #place(pending: PendingFolder[], budget: number): void {
    for (let tried = 0; tried < budget; ) {
      const next = pending.pop();
      if (next === undefined) return;
      if (this.#folders.has(next.path)) continue;
      tried += 1;
      const current = next.path;
      const below = next.depth - 1;
      const watcher = this.#watch(current, (name) => this.#folderChanged(current, name, below >= 0));
      if (watcher === undefined) continue;
      this.#folders.set(current, watcher);
      if (below < 0) continue;
      let names: string[];
      try {
        names = readdirSync(current, { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && !NOT_WATCHED.has(entry.name))
          .map((entry) => entry.name);
      } catch {
        // Gone or unreadable since the watch was set: its event (or discovery) says so.
        continue;
      }
      for (const name of names) pending.push({ path: join(current, name), depth: below });
    }
  }

  /** An entry of a watched folder changed: tell, then follow a folder that came or went. */
  #folderChanged(folder: string, name: string | undefined, followFolders: boolean): void {
    if (this.#closed) return;
    if (this.#roots.has(folder) && !isFolderOrLinkToOne(folder)) {
      // A root removed (or replaced by a file): wait for it again in its parent.
      this.#forgetTree(folder);
      this.#options.onChange(folder);
      this.#addRoot(folder, true);
      return;
    }
    if (name === undefined) {
      // The event does not say which entry: the folder as a whole changed.
      this.#options.onChange(folder);
      return;
    }
    const path = join(folder, name);
    this.#options.onChange(path);
    if (!followFolders || NOT_WATCHED.has(name)) return;
    if (isFolder(path)) {
      if (!this.#folders.has(path)) this.#addTree(path, Number.POSITIVE_INFINITY);
    } else if (this.#folders.has(path)) {
      this.#forgetTree(path);
    }
  }

  /** Sets one watch; undefined (and the watch marked incomplete when it is a limit) when it cannot be set. */
  #watch(folder: string, onEvent: (name: string | undefined) => void): FSWatcher | undefined {
    if (this.#folders.size + this.#waiting.size >= this.#maxFolders) {
      this.#incomplete(`more than ${this.#maxFolders} folders to watch`);
      return undefined;
    }
    let watcher: FSWatcher;
    try {
      watcher = this.#watchFolder(folder, (_event, name) => onEvent(name ?? undefined));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A folder that went away (or was never readable) needs no watch; a limit does.
      if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES" && code !== "EPERM")
        this.#incomplete(
          code === "ENOSPC"
            ? "ENOSPC: the system's inotify watch limit (fs.inotify.max_user_watches) is reached"
            : `cannot watch ${folder}: ${describeError(error)}`,
        );
      return undefined;
    }
    watcher.on("error", () => {
      // The folder went away under the watch (or the watch broke): let it go and say so.
      watcher.close();
      if (this.#folders.get(folder) === watcher) this.#forgetTree(folder);
      if (!this.#closed) this.#options.onChange(folder);
    });
    return watcher;
  }

  #incomplete(reason: string): void {
    if (this.#reasons.has(reason)) return;
    this.#reasons.add(reason);
    this.#options.onIncomplete?.(reason);
  }

  /** Lets `folder` and every watched folder below it go (and forgets the pending ones). */
  #forgetTree(folder: string): void {
    const prefix = folder + sep;
    this.#pending = this.#pending.filter((next) => next.path !== folder && !next.path.startsWith(prefix));
    for (const [path, watcher] of this.#folders) {
      if (path === folder || path.startsWith(prefix)) {
        watcher.close();
        this.#folders.delete(path);
      }
    }
  }

  #forgetRoot(root: string): void {
    this.#forgetTree(root);
    for (const [parent, waiting] of this.#waiting) {
      if (!waiting.roots.delete(root) || waiting.roots.size > 0) continue;
      waiting.watcher.close();
      this.#waiting.delete(parent);
    }
  }
}

/** True when `path` is a folder or a link to one (a root may be a link: the watch follows it). */
function isFolderOrLinkToOne(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** True when `path` is a folder itself (a link to one is not). */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
