import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { RunResult } from "../contract.js";
import { refusal } from "../refusal.js";

/**
 * How a run may use its workspace (docs/running-scripts.md, "The workspace"): `read` sees
 * it read-only, `write` may create, change and delete files in it.
 */
export type WorkspaceAccess = "read" | "write";

/**
 * The project folder a run sees: the turn's root. It is mounted in the sandbox at `path`,
 * and the script starts there (the local runner starts there too).
 */
export interface RunWorkspace {
  /** Absolute and normalised: where the script sees the workspace and its working folder. */
  readonly path: string;
  readonly access: WorkspaceAccess;
}

/** A workspace the router checked: the real folder behind it and what must stay read-only in it. */
export interface CheckedWorkspace extends RunWorkspace {
  /** `path` with every symbolic link resolved: what is mounted, and what the before/after comparison walks. */
  readonly source: string;
  /**
   * Regular files of the workspace with more than one name (`nlink > 1`), relative to it
   * (`/`-separated): another name may be outside the workspace, so a writable sandbox binds
   * each of them read-only over itself. Empty for a read-only workspace.
   */
  readonly readOnlyFiles: readonly string[];
}

/** The refusal codes of the workspace checks (RunResult.code). */
export type WorkspaceRefusalCode = "workspace_not_allowed" | "workspace_unreachable";

/**
 * Places a workspace may not be: the root, the system folders the sandbox mounts itself (a
 * workspace there would hide or replace them), the sandbox's own mount points, and the host's
 * `/tmp` itself (a folder under it is fine; `/tmp` as a whole stays private).
 */
const RESERVED_FOLDERS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/proc",
  "/sys",
  "/dev",
  "/skill",
  "/proxy.sock",
] as const;

/**
 * Checks a workspace before a run: an absolute path naming an existing folder, not the root,
 * a system folder or `/tmp`, and neither inside nor holding one of `protectedFolders`
 * (skillgate's own configuration and data: a script that could read or write them could read
 * chat logs or change grants and trust). Both the path as given and its real path are judged.
 */
export function checkWorkspace(
  workspace: RunWorkspace,
  protectedFolders: readonly string[],
  script: string,
): { ok: true; workspace: Omit<CheckedWorkspace, "readOnlyFiles"> } | { ok: false; refusal: RunResult } {
  const given = workspace.path;
  const notAllowed = (why: string): { ok: false; refusal: RunResult } => ({
    ok: false,
    refusal: refusal(
      "workspace_not_allowed",
      `the workspace ${JSON.stringify(given)} ${why}, so ${script} did not run. Run it with a project folder as the root (--root).`,
    ),
  });
  if (!isAbsolute(given) || given.includes("\0")) return notAllowed("is not an absolute path");
  const path = resolve(given);
  let source: string;
  try {
    source = realpathSync(path);
    if (!statSync(source).isDirectory()) return notAllowed("is not a folder");
  } catch {
    return notAllowed("does not exist");
  }
  for (const candidate of new Set([path, source])) {
    if (candidate === "/" || candidate === "/tmp") return notAllowed(`is ${candidate}, which stays private`);
    const reserved = RESERVED_FOLDERS.find((folder) => within(candidate, folder));
    if (reserved !== undefined) return notAllowed(`is in ${reserved}, a folder the sandbox provides itself`);
  }
  for (const folder of protectedFolders) {
    const real = realOrSelf(folder);
    if (within(real, source) || within(source, real) || within(folder, path) || within(path, folder))
      return notAllowed("holds or is inside skillgate's own configuration or data folder");
  }
  return { ok: true, workspace: { path, access: workspace.access, source } };
}

/** True when `path` is `folder` or inside it. */
export function within(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === "" || (!rest.startsWith(`..${sep}`) && rest !== ".." && !isAbsolute(rest));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
