import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { sep } from "node:path";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_DISCOVERY_DEPTH, MAX_DISCOVERY_FOLDERS, MAX_SKILLS_PER_ROOT } from "../core/limits.js";
import { SKILL_FILE } from "../skill/read-skill-file.js";

/** Folder names never searched: version control, dependencies, and hidden folders (the store's staging). */
const SKIPPED = new Set(["node_modules", ".git"]);
const NODE_MODULES = "node_modules";
const DOT = 0x2e;

/** Where a walk is: folders counted, whether a limit stopped it, and the real paths entered. */
interface WalkState {
  folders: number;
  stopped: boolean;
  /** Every real path entered, once a link has been followed. */
  visited: Set<string> | undefined;
  /** The real paths entered before the first link: only regular folders, which never repeat. */
  entered: string[];
}

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
 *
 * The walk records a folder as a candidate right after its probe answers true (unless a
 * limit stops the walk there), so the candidates that are not escaped links come in the
 * order of the probes that answered true: a probe may keep what it found in a list.
 */
export type SkillProbe = (directory: string) => boolean;

/**
 * Finds skill folders below `root`: a folder holding SKILL.md is a skill and is not
 * searched further; other folders are searched to `maxDepth`. `.git`, `node_modules`
 * and hidden folders are skipped; entries are visited in name order. A symlinked folder
 * is followed only when its real path stays inside one of `allowedRoots` (real paths);
 * otherwise it is returned as an escaped candidate so the caller records
 * `path_not_allowed`. A folder reached twice (a link to a sibling or to a parent) is
 * searched once, at the first path in name order. When `root` itself holds a SKILL.md
 * it is the one skill returned.
 */
export function walkSkillsRoot(
  root: string,
  allowedRoots: readonly string[],
  probe: SkillProbe,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
): WalkResult {
  const diagnostics: Diagnostic[] = [];
  const candidates: SkillCandidate[] = [];
  let rootEntries: Dirent[];
  try {
    rootEntries = readdirSync(root, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { exists: false, candidates, diagnostics };
    diagnostics.push(
      diagnostic("unreadable_file", "error", `cannot read ${root} (${code ?? String(error)})`, {
        path: root,
      }),
    );
    return { exists: true, candidates, diagnostics };
  }
  if (rootEntries.some((entry) => entry.name === SKILL_FILE) && probe(root)) {
    return { exists: true, candidates: [{ directory: root }], diagnostics };
  }
  // Real paths of every folder entered, so a link back to a parent or to a sibling
  // cannot loop or list one skill twice. A regular folder's real path is its parent's
  // real path plus its name; only links cost a realpath call. Regular folders cannot be
  // reached twice through regular entries, so until the first link is followed their
  // real paths are only collected; the set is built when a link needs it.
  const rootReal = realPathOr(root);
  const state: WalkState = { folders: 0, stopped: false, visited: undefined, entered: [rootReal] };
  const stop = (message: string): void => {
    state.stopped = true;
    diagnostics.push(
      diagnostic("limit_exceeded", "error", message, {
        path: root,
        hint: "point skillgate at a narrower folder",
      }),
    );
  };
  const visit = (directory: string, realDirectory: string, entries: Dirent[], depth: number): void => {
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      if (state.stopped) return;
      const name = entry.name;
      if (name.charCodeAt(0) === DOT || (name.length === NODE_MODULES.length && SKIPPED.has(name))) continue;
      const child = childPath(directory, name);
      let realChild: string;
      if (entry.isSymbolicLink()) {
        const resolved = resolveLink(child);
        if (resolved === undefined || !resolved.isDirectory) continue;
        if (!isInside(resolved.realPath, allowedRoots)) {
          candidates.push({ directory: child, escaped: { realPath: resolved.realPath } });
          continue;
        }
        realChild = resolved.realPath;
        state.visited ??= new Set(state.entered);
        if (state.visited.has(realChild)) continue;
        state.visited.add(realChild);
      } else if (entry.isDirectory()) {
        realChild = childPath(realDirectory, name);
        if (state.visited === undefined) state.entered.push(realChild);
        else if (state.visited.has(realChild)) continue;
        else state.visited.add(realChild);
      } else {
        continue;
      }
      state.folders += 1;
      if (state.folders > limits.maxFolders) {
        stop(`more than ${limits.maxFolders} folders below ${root}; the rest were not searched`);
        return;
      }
      if (probe(child)) {
        if (candidates.length >= limits.maxSkills) {
          stop(`more than ${limits.maxSkills} skills below ${root}; the rest were not loaded`);
          return;
        }
        candidates.push({ directory: child });
        continue;
      }
      if (depth + 1 >= limits.maxDepth) continue;
      let childEntries: Dirent[];
      try {
        childEntries = readdirSync(child, { withFileTypes: true });
      } catch {
        continue;
      }
      visit(child, realChild, childEntries, depth + 1);
    }
  };
  visit(root, rootReal, rootEntries, 0);
  return { exists: true, candidates, diagnostics };
}

/** `join` without its normalising pass: both parts are already clean (a listed name, a walked folder). */
function childPath(directory: string, name: string): string {
  return directory.endsWith(sep) ? directory + name : directory + sep + name;
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function resolveLink(path: string): { realPath: string; isDirectory: boolean } | undefined {
  try {
    const realPath = realpathSync(path);
    return { realPath, isDirectory: statSync(realPath).isDirectory() };
  } catch {
    return undefined;
  }
}

/** True when `path` is one of `roots` or below one of them (all real paths). */
export function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
}
