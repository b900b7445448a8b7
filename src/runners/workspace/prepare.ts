import type { RunRequest, RunResult } from "../contract.js";
import { refusal } from "../refusal.js";
import { compareScans, scanWorkspace, WORKSPACE_SCAN_LIMITS, type WorkspaceScan } from "./changes.js";
import { type CheckedWorkspace, checkWorkspace } from "./workspace.js";

/** A workspace ready for its run: checked, walked once, with the walk to compare after. */
export interface PreparedWorkspace {
  readonly workspace: CheckedWorkspace;
  /** The walk before the run, when its changes are listed afterwards. */
  readonly before?: WorkspaceScan;
}

/**
 * Checks the request's workspace ({@link checkWorkspace}) and, when the run may change it,
 * walks it before the run. It may change it when it is writable, and always under the local
 * runner, which runs as the host user and cannot hold a workspace read-only. A writable
 * workspace's files with a second name are kept read-only in the sandbox; more of them than
 * the cap refuses the run, since one of those names may be outside the workspace. Runs on a
 * remote node or a queue worker pass the request's workspace on unchecked: it names a folder
 * there (docs/running-scripts.md, "Remote nodes and queue workers").
 */
export function prepareWorkspace(
  request: RunRequest,
  protectedFolders: readonly string[],
): { ok: true; prepared?: PreparedWorkspace } | { ok: false; refusal: RunResult } {
  if (request.workspace === undefined) return { ok: true };
  // A remote node or queue worker names a folder on its own machine: its checks are its own.
  if (request.execution === "node" || request.execution === "queue") return { ok: true };
  const checked = checkWorkspace(request.workspace, protectedFolders, request.script);
  if (!checked.ok) return checked;
  const compared = checked.workspace.access === "write" || request.execution === "local";
  if (!compared) return { ok: true, prepared: { workspace: { ...checked.workspace, readOnlyFiles: [] } } };
  const before = scanWorkspace(checked.workspace.source);
  const linked = checked.workspace.access === "write" ? before.linkedFiles : [];
  if (linked.length > WORKSPACE_SCAN_LIMITS.readOnlyFiles)
    return {
      ok: false,
      refusal: refusal(
        "workspace_not_allowed",
        `the workspace ${JSON.stringify(checked.workspace.path)} holds more than ${WORKSPACE_SCAN_LIMITS.readOnlyFiles} files with a second name (hard links), which a script must not write through, so ${request.script} did not run.`,
      ),
    };
  return { ok: true, prepared: { workspace: { ...checked.workspace, readOnlyFiles: linked }, before } };
}

/** The run's result with what it changed in its workspace, when its workspace was walked before. */
export function withWorkspaceChanges(result: RunResult, prepared: PreparedWorkspace | undefined): RunResult {
  if (prepared?.before === undefined || result.status === "refused") return result;
  const after = scanWorkspace(prepared.workspace.source);
  return { ...result, workspaceChanges: compareScans(prepared.before, after) };
}

/** A workspace that did not come through the router's checks is never mounted or entered. */
export function uncheckedWorkspace(request: RunRequest): RunResult {
  return refusal(
    "runner_unavailable",
    `${request.skill} reached the runner with a workspace the router did not check, so ${request.script} did not run; tell the host's owner.`,
  );
}
