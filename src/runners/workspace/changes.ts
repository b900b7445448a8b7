import { type BigIntStats, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * The bounded before/after comparison of a workspace (docs/running-scripts.md, "What a run
 * changed"). Each walk looks at names only through `lstat`: links are recorded, never
 * followed, so the walk stays inside the workspace whatever the script left in it.
 */

/** The comparison's caps: past one, what was not seen is not compared, and the result says so. */
export const WORKSPACE_SCAN_LIMITS = {
  /** Names looked at per walk (files, folders, links and others alike). */
  entries: 20_000,
  /** Folder depth below the workspace; deeper folders are listed but not entered. */
  depth: 32,
  /** Paths listed in a result across created, changed and deleted; the rest are counted in `omitted`. */
  listed: 1_000,
  /** Files with a second name bound read-only in a writable sandbox; more than this refuses the run. */
  readOnlyFiles: 1_024,
} as const;

/** The shape of {@link WORKSPACE_SCAN_LIMITS}, lowered by tests. */
export interface ScanLimits {
  readonly entries: number;
  readonly depth: number;
  readonly listed: number;
  readonly readOnlyFiles: number;
}

/** Why a comparison did not see the whole workspace. */
export type WorkspaceScanGap = "entries" | "depth" | "unreadable";

/** What a run created, changed and deleted in its workspace. */
export interface WorkspaceChanges {
  /** Paths relative to the workspace, `/`-separated, sorted; a folder ends in `/`. */
  readonly created: readonly string[];
  readonly changed: readonly string[];
  readonly deleted: readonly string[];
  /** Changes found but not listed, past {@link WORKSPACE_SCAN_LIMITS.listed}. */
  readonly omitted: number;
  /** True when both walks saw every name; otherwise `gaps` says which cap or failure cut them short. */
  readonly complete: boolean;
  readonly gaps?: readonly WorkspaceScanGap[];
}

/** One walk of a workspace: a signature per relative path. */
export interface WorkspaceScan {
  readonly entries: ReadonlyMap<string, string>;
  readonly gaps: ReadonlySet<WorkspaceScanGap>;
  /** Regular files with more than one name, relative paths (at most the cap plus one). */
  readonly linkedFiles: readonly string[];
}

/**
 * Walks `folder` depth first in name order, recording for each name its kind and what
 * changes when it is written: size, modification and change times (nanoseconds), inode and
 * mode; a link's target. The change time cannot be set by a script, so a rewrite that keeps
 * the size and restores the modification time is still seen. Contents are not read.
 */
export function scanWorkspace(folder: string, limits: ScanLimits = WORKSPACE_SCAN_LIMITS): WorkspaceScan {
  const entries = new Map<string, string>();
  const gaps = new Set<WorkspaceScanGap>();
  const linkedFiles: string[] = [];
  const pending: { relative: string; depth: number }[] = [{ relative: "", depth: 0 }];
  while (pending.length > 0) {
    const current = pending.pop() as { relative: string; depth: number };
    let names: string[];
    try {
      names = readdirSync(join(folder, current.relative)).sort();
    } catch {
      gaps.add("unreadable");
      continue;
    }
    const folders: { relative: string; depth: number }[] = [];
    for (const name of names) {
      if (entries.size >= limits.entries) {
        gaps.add("entries");
        return { entries, gaps, linkedFiles };
      }
      const relative = current.relative === "" ? name : `${current.relative}/${name}`;
      let stats: BigIntStats;
      try {
        stats = lstatSync(join(folder, relative), { bigint: true });
      } catch {
        gaps.add("unreadable");
        continue;
      }
      entries.set(relative, signature(stats, join(folder, relative)));
      if (stats.isFile() && stats.nlink > 1n && linkedFiles.length <= limits.readOnlyFiles)
        linkedFiles.push(relative);
      if (stats.isDirectory()) {
        if (current.depth + 1 >= limits.depth) gaps.add("depth");
        else folders.push({ relative, depth: current.depth + 1 });
      }
    }
    // Reversed onto the stack so folders are entered in name order.
    for (const next of folders.reverse()) pending.push(next);
  }
  return { entries, gaps, linkedFiles };
}

/**
 * What differs between two walks. A folder counts as changed only when its kind or mode
 * changed: its times move whenever a name in it is added or removed, which is listed itself.
 */
export function compareScans(
  before: WorkspaceScan,
  after: WorkspaceScan,
  limits: Pick<ScanLimits, "listed"> = WORKSPACE_SCAN_LIMITS,
): WorkspaceChanges {
  const created: string[] = [];
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [path, was] of before.entries) {
    const now = after.entries.get(path);
    if (now === undefined) deleted.push(shown(path, was));
    else if (now !== was && !(isFolder(was) && isFolder(now) && modeOf(was) === modeOf(now)))
      changed.push(shown(path, now));
  }
  for (const [path, now] of after.entries) if (!before.entries.has(path)) created.push(shown(path, now));
  const gaps = [...new Set([...before.gaps, ...after.gaps])].sort();
  let room: number = limits.listed;
  const keep = (list: string[]): string[] => {
    const kept = list.sort().slice(0, Math.max(0, room));
    room -= kept.length;
    return kept;
  };
  const total = created.length + changed.length + deleted.length;
  const lists = { created: keep(created), changed: keep(changed), deleted: keep(deleted) };
  const omitted = total - lists.created.length - lists.changed.length - lists.deleted.length;
  return { ...lists, omitted, complete: gaps.length === 0, ...(gaps.length > 0 ? { gaps } : {}) };
}

/** True when a comparison found nothing at all. */
export function noChanges(changes: WorkspaceChanges): boolean {
  return changes.created.length + changes.changed.length + changes.deleted.length + changes.omitted === 0;
}

/**
 * The changes as lines: `created: a.txt`, `changed: b/`, `deleted: c.txt`, then how many
 * were not listed and which cap left part of the workspace unseen. Empty when nothing changed.
 */
export function describeWorkspaceChanges(changes: WorkspaceChanges): string[] {
  const lines: string[] = [];
  for (const kind of ["created", "changed", "deleted"] as const)
    for (const path of changes[kind]) lines.push(`${kind}: ${path}`);
  if (changes.omitted > 0) lines.push(`(${changes.omitted} more changes not listed)`);
  if (!changes.complete)
    lines.push(
      `(the comparison did not see the whole workspace: ${(changes.gaps ?? []).map(describeGap).join(", ")}; changes there are not listed)`,
    );
  return lines;
}

function describeGap(gap: WorkspaceScanGap): string {
  if (gap === "entries") return `over ${WORKSPACE_SCAN_LIMITS.entries} names`;
  if (gap === "depth") return `folders deeper than ${WORKSPACE_SCAN_LIMITS.depth}`;
  return "folders or files it could not read";
}

function signature(stats: BigIntStats, path: string): string {
  const kind = stats.isDirectory()
    ? "d"
    : stats.isFile()
      ? "f"
      : stats.isSymbolicLink()
        ? "l"
        : stats.isFIFO()
          ? "p"
          : stats.isSocket()
            ? "s"
            : "o";
  const mode = (stats.mode & 0o7777n).toString(8);
  if (kind === "d") return `d:${mode}`;
  const target = kind === "l" ? `:${linkTarget(path)}` : "";
  return `${kind}:${mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}${target}`;
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "?";
  }
}

function isFolder(signature: string): boolean {
  return signature.startsWith("d:");
}

function modeOf(signature: string): string {
  return signature.split(":")[1] ?? "";
}

function shown(path: string, signature: string): string {
  return isFolder(signature) ? `${path}/` : path;
}
