import { type Dirent, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, sep } from "node:path";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_DISCOVERY_DEPTH, MAX_DISCOVERY_FOLDERS, MAX_SKILLS_PER_ROOT } from "../core/limits.js";
import { SKILL_FILE } from "../skill/read-skill-file.js";
import { LeftOut, leftOutDiagnostics, NOTHING_LEFT_OUT, type NotSearched } from "./not-searched.js";

/**
 * Folder names never searched, at any depth: version control and dependencies. Other
 * hidden folders are searched (real skills live in `.curated`, `.system`, `.experimental`);
 * a source may add its own names for its top level (the managed store's internal folders,
 * see sources.ts). docs/skills.md lists them.
 */
export const SKIPPED_FOLDER_NAMES: readonly string[] = [".git", ".hg", ".svn", "node_modules"];
const NODE_MODULES = "node_modules";
const DOT = 0x2e;

/** A folder that holds a SKILL.md, or a symlinked folder that leads outside the allowed roots. */
export interface SkillCandidate {
  readonly directory: string;
  /** The folder is a symlink whose real path leaves every allowed root: not loaded. */
  readonly escaped?: { readonly realPath: string };
}

/** The walk's result for one root. */
export interface WalkResult {
  readonly exists: boolean;
  readonly candidates: SkillCandidate[];
  readonly diagnostics: Diagnostic[];
  readonly notSearched: NotSearched;
}

/** What {@link walkSkillFolders} returns. */
export interface WalkOutcome {
  readonly exists: boolean;
  readonly diagnostics: Diagnostic[];
  readonly notSearched: NotSearched;
}

/** Caps for one walk; defaults from limits.ts. */
export interface WalkLimits {
  readonly maxDepth: number;
  readonly maxFolders: number;
  readonly maxSkills: number;
}

/** The documented defaults. */
export const DEFAULT_WALK_LIMITS: WalkLimits = {
  maxDepth: MAX_DISCOVERY_DEPTH,
  maxFolders: MAX_DISCOVERY_FOLDERS,
  maxSkills: MAX_SKILLS_PER_ROOT,
};

/**
 * Tells whether a folder is a skill. Discovery's probe reads (or re-validates from its
 * cache) the folder's SKILL.md in the same step, so a skill costs one open, not a
 * listing plus an open. It returns false only when the folder holds no SKILL.md.
 * `name` is the folder's own name and `realDirectory` its real path (links resolved):
 * reading through it spares the system resolving the same links for every file.
 * `parent` is the path of the folder's parent with a separator at the end (`directory`
 * is `parent + name`), the same string for every folder of one listing; it is empty for
 * the root itself.
 */
export type SkillProbe = (directory: string, name: string, realDirectory: string, parent: string) => boolean;

/** What a walk tells its caller as it goes. */
export interface SkillWalker {
  readonly probe: SkillProbe;
  /**
   * A skill folder found: called right after its probe answered true (unless a limit
   * stops the walk there, and then not at all), or for a linked folder whose real path
   * `escapedTo` leaves every allowed root (no probe then).
   */
  readonly found: (directory: string, escapedTo: string | undefined) => void;
  /**
   * Names skipped at the top of this root only, besides {@link SKIPPED_FOLDER_NAMES}: the
   * managed store's internal folders (staging, trash, plans, its lock).
   */
  readonly ownFolders?: ReadonlySet<string>;
}

/**
 * Finds skill folders below `root`: a folder holding SKILL.md is a skill and is not
 * searched further; other folders are searched to `maxDepth`. Folders named in
 * {@link SKIPPED_FOLDER_NAMES} are skipped (other hidden folders are searched); entries
 * are visited in name order. A symlinked folder
 * is followed only when its real path stays inside one of `allowedRoots` (real paths);
 * otherwise it is returned as an escaped candidate so the caller records
 * `path_not_allowed`. A folder reached twice (a link to a sibling or to a parent) is
 * searched once, at the first path in name order. When `root` itself holds a SKILL.md
 * it is the one skill returned.
 */
export function walkSkillsRoot(
  root: string,
  allowedRoots: readonly string[],
  probe: (directory: string) => boolean,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
  ownFolders?: ReadonlySet<string>,
): WalkResult {
  const candidates: SkillCandidate[] = [];
  const walk = walkSkillFolders(
    root,
    allowedRoots,
    {
      probe,
      found: (directory, escapedTo) =>
        candidates.push(
          escapedTo === undefined ? { directory } : { directory, escaped: { realPath: escapedTo } },
        ),
      ...(ownFolders !== undefined ? { ownFolders } : {}),
    },
    limits,
  );
  return { exists: walk.exists, candidates, diagnostics: walk.diagnostics, notSearched: walk.notSearched };
}

/**
 * {@link walkSkillsRoot} without a list: each skill folder is handed to `walker.found`
 * as it is found, in the same order, so a caller builds what it needs without a
 * candidate object per skill. `rootReal` is the root's real path when the caller has
 * resolved it already (discovery does, for the allowed roots).
 */
export function walkSkillFolders(
  root: string,
  allowedRoots: readonly string[],
  walker: SkillWalker,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
  rootReal?: string,
): WalkOutcome {
  const diagnostics: Diagnostic[] = [];
  let rootEntries: Dirent[];
  try {
    rootEntries = readdirSync(root, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      return { exists: false, diagnostics, notSearched: NOTHING_LEFT_OUT };
    diagnostics.push(
      diagnostic("unreadable_file", "error", `cannot read ${root} (${code ?? String(error)})`, {
        path: root,
      }),
    );
    return { exists: true, diagnostics, notSearched: NOTHING_LEFT_OUT };
  }
  const realRoot = rootReal ?? realPathOr(root);
  if (
    rootEntries.some((entry) => entry.name === SKILL_FILE) &&
    walker.probe(root, basename(root), realRoot, "")
  ) {
    walker.found(root, undefined);
    return { exists: true, diagnostics, notSearched: NOTHING_LEFT_OUT };
  }
  const visited = new VisitedFolders(realRoot);
  const ownFolders = walker.ownFolders;
  const leftOut = new LeftOut();
  let folders = 0;
  // Everything handed to walker.found, links that lead outside included: the skills cap counts them all.
  let recorded = 0;
  // Past the skills cap the walk goes on only to count the skills it leaves out.
  let counting = false;
  let stopped = false;
  const visit = (listing: Listing, depth: number): void => {
    const entries = listing.entries;
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (let index = 0; index < entries.length; index += 1) {
      if (stopped) {
        leftOut.overFolderLimit += foldersIn(entries, index);
        return;
      }
      listing.reached = index;
      const entry = entries[index] as Dirent;
      const name = entry.name;
      if (isSkippedFolderName(name) || (depth === 0 && ownFolders !== undefined && ownFolders.has(name))) {
        if (entry.isDirectory() || entry.isSymbolicLink()) leftOut.skipped(name);
        continue;
      }
      const child = listing.prefix + name;
      // The real path of the folder; for a link, the real path of where it leads.
      let realChild = listing.realPrefix + name;
      if (entry.isSymbolicLink()) {
        const resolved = resolveLink(realChild);
        if (resolved === undefined || !resolved.isDirectory) continue;
        if (!isInside(resolved.realPath, allowedRoots)) {
          if (counting) leftOut.overSkillLimit += 1;
          else {
            recorded += 1;
            walker.found(child, resolved.realPath);
          }
          continue;
        }
        realChild = resolved.realPath;
        if (!visited.enterLink(realChild)) continue;
      } else if (entry.isDirectory()) {
        if (!visited.enterFolder(realChild)) continue;
      } else {
        continue;
      }
      folders += 1;
      if (folders > limits.maxFolders) {
        stopped = true;
        leftOut.overFolderLimit += foldersIn(entries, index);
        return;
      }
      if (counting) {
        if (holdsSkillFile(realChild)) {
          leftOut.overSkillLimit += 1;
          continue;
        }
      } else if (walker.probe(child, name, realChild, listing.prefix)) {
        if (recorded >= limits.maxSkills) {
          counting = true;
          leftOut.overSkillLimit += 1;
          continue;
        }
        recorded += 1;
        walker.found(child, undefined);
        continue;
      }
      if (depth + 1 >= limits.maxDepth) {
        leftOut.belowDepthLimit += 1;
        continue;
      }
      let childEntries: Dirent[];
      try {
        childEntries = readdirSync(realChild, { withFileTypes: true });
      } catch {
        continue;
      }
      visit(visited.listing(child, realChild, childEntries), depth + 1);
    }
    listing.reached = entries.length;
  };
  visit(visited.listing(root, visited.rootReal, rootEntries), 0);
  const notSearched = leftOut.done();
  diagnostics.push(...leftOutDiagnostics(root, limits, notSearched, stopped));
  return { exists: true, diagnostics, notSearched };
}

/** The entries from `from` on that may be folders (folders and links, not skipped by name). */
function foldersIn(entries: readonly Dirent[], from: number): number {
  let count = 0;
  for (let index = from; index < entries.length; index += 1) {
    const entry = entries[index] as Dirent;
    if (!isSkippedFolderName(entry.name) && (entry.isDirectory() || entry.isSymbolicLink())) count += 1;
  }
  return count;
}

/** Whether a folder holds an entry named SKILL.md; used only to count skills past the cap. */
function holdsSkillFile(realDirectory: string): boolean {
  try {
    return lstatSync(realDirectory + sep + SKILL_FILE, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** A folder's entries as the walk goes through them, and its path and real path. */
interface Listing {
  /** The folder's path with a separator at the end: a child's path is this plus its name, one string join. */
  readonly prefix: string;
  /** The same for the folder's real path. */
  readonly realPrefix: string;
  readonly entries: Dirent[];
  /** The index of the entry being handled; every entry before it is done. */
  reached: number;
}

/**
 * The real paths of every folder entered, so a link back to a parent or to a sibling
 * cannot loop or list one skill twice. A regular folder's real path is its parent's real
 * path plus its name, and regular folders cannot be reached twice through regular
 * entries: until the first link is followed nothing is recorded per folder (the listings
 * say what was entered); the set is built from them when a link needs it.
 */
class VisitedFolders {
  readonly #listings: Listing[] = [];
  #set: Set<string> | undefined;

  constructor(readonly rootReal: string) {}

  /** A listing to walk through; its regular folders count as entered as the walk reaches them. */
  listing(directory: string, realDirectory: string, entries: Dirent[]): Listing {
    const listing: Listing = {
      prefix: withSeparator(directory),
      realPrefix: withSeparator(realDirectory),
      entries,
      reached: 0,
    };
    if (this.#set === undefined) this.#listings.push(listing);
    return listing;
  }

  /** Enters a regular folder by its real path; false when it was entered before. */
  enterFolder(realPath: string): boolean {
    if (this.#set === undefined) return true;
    return this.#add(realPath);
  }

  /** Enters a linked folder by its real path; false when it was entered before. */
  enterLink(realPath: string): boolean {
    if (this.#set === undefined) this.#set = this.#collect();
    return this.#add(realPath);
  }

  #add(realPath: string): boolean {
    const set = this.#set as Set<string>;
    if (set.has(realPath)) return false;
    set.add(realPath);
    return true;
  }

  /** Every real path entered so far: the root and the regular folders the listings reached. */
  #collect(): Set<string> {
    const set = new Set<string>([this.rootReal]);
    for (const listing of this.#listings) {
      // The entry being handled when a link is met is entered too, unless it is the link.
      for (let index = 0; index <= listing.reached && index < listing.entries.length; index += 1) {
        const entry = listing.entries[index] as Dirent;
        if (!isSkippedFolderName(entry.name) && !entry.isSymbolicLink() && entry.isDirectory()) {
          set.add(listing.realPrefix + entry.name);
        }
      }
    }
    this.#listings.length = 0;
    return set;
  }
}

/**
 * True for a name in {@link SKIPPED_FOLDER_NAMES}, decided by its first character and
 * length before any comparison of text: it runs for every entry of every listing.
 */
export function isSkippedFolderName(name: string): boolean {
  if (name.charCodeAt(0) === DOT) return name === ".git" || name === ".hg" || name === ".svn";
  return name.length === NODE_MODULES.length && name === NODE_MODULES;
}

/**
 * A folder's path ready for a name to be added: `join` without its normalising pass, as
 * both parts are already clean (a walked folder, a listed name).
 */
function withSeparator(directory: string): string {
  return directory.endsWith(sep) ? directory : directory + sep;
}

function realPathOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function resolveLink(path: string): { realPath: string; isDirectory: boolean } | undefined {
  try {
    const realPath = realpathSync.native(path);
    return { realPath, isDirectory: statSync(realPath).isDirectory() };
  } catch {
    return undefined;
  }
}

/** True when `path` is one of `roots` or below one of them (all real paths). */
export function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
}
