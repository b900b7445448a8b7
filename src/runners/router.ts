import type { ExecutionMode } from "../skill/governance.js";
import type { Runner, RunRequest, RunResult } from "./contract.js";
import { refusal } from "./refusal.js";
import type { SnapshotStore } from "./snapshot.js";
import { prepareWorkspace, withWorkspaceChanges } from "./workspace/prepare.js";

/** The runner of each execution mode; a mode left out is refused with a `HOST:` message. */
export type ModeRunners = Partial<Readonly<Record<ExecutionMode, Runner>>>;

/** Options of {@link RunnerRouter}. */
export interface RunnerRouterOptions {
  /** Verifies hashes and makes the snapshots every mode runs from. */
  readonly snapshots: SnapshotStore;
  readonly runners: ModeRunners;
  /**
   * Folders no workspace may hold or be inside: skillgate's own configuration and data
   * (docs/running-scripts.md, "The workspace").
   */
  readonly protectedFolders?: readonly string[];
}

/**
 * Hands each script to the runner of its skill's execution mode (docs/running-scripts.md,
 * "The router"). Whatever the mode, the order is the same: the mode's runner admits
 * the call (trust, language), then the skill's live folder is hashed and compared with the
 * hash the call was approved against, the verified bytes are snapshotted (or the snapshot
 * of that hash reused), and the runner is given the snapshot as the skill's folder. A
 * runner never sees the live folder through the router. A run with a workspace has it
 * checked first, and walked before and after when it may change it (workspace/prepare.ts).
 */
export class RunnerRouter implements Runner {
  readonly #snapshots: SnapshotStore;
  readonly #runners: ModeRunners;
  readonly #protectedFolders: readonly string[];

  constructor(options: RunnerRouterOptions) {
    this.#snapshots = options.snapshots;
    this.#runners = options.runners;
    this.#protectedFolders = options.protectedFolders ?? [];
  }

  /** The runner for a mode, if one is configured. */
  runnerFor(mode: ExecutionMode): Runner | undefined {
    return this.#runners[mode];
  }

  admit(request: RunRequest): RunResult | undefined {
    const runner = this.#runners[request.execution];
    if (runner === undefined) return noRunner(request);
    return runner.admit?.(request);
  }

  async run(request: RunRequest): Promise<RunResult> {
    const runner = this.#runners[request.execution];
    if (runner === undefined) return noRunner(request);
    const refused = runner.admit?.(request);
    if (refused !== undefined) return refused;
    const workspace = prepareWorkspace(request, this.#protectedFolders);
    if (!workspace.ok) return workspace.refusal;
    const prepared = this.#snapshots.prepare(request);
    if (!prepared.ok) return prepared.refusal;
    const snapshot = prepared.snapshot;
    const checkedWorkspace = workspace.prepared?.workspace;
    try {
      const result = await runner.run({
        ...request,
        folder: snapshot.folder,
        snapshot,
        ...(checkedWorkspace !== undefined ? { checkedWorkspace } : {}),
      });
      return withWorkspaceChanges(result, workspace.prepared);
    } finally {
      this.#snapshots.release(snapshot);
    }
  }
}

/** The refusal for a mode with no runner on this host. */
function noRunner(request: RunRequest): RunResult {
  const did = `${request.script} of ${request.skill} did not run`;
  switch (request.execution) {
    case "node":
      return refusal(
        "runner_unavailable",
        `${request.skill} runs on a named server (skillgate.execution: node), and this process has no node controller: node runs go through \`skillgate serve\` (run it with \`skillgate run --server URL\`, or connect to the server's MCP). ${did}.`,
      );
    case "queue":
      return refusal(
        "runner_unavailable",
        `${request.skill} runs on the shared worker pool (skillgate.execution: queue), which this host does not have yet. ${did}.`,
      );
    case "sandbox":
      return refusal(
        "runner_unavailable",
        `no sandbox runner is configured on this host, so ${did}; tell the host's owner.`,
      );
    case "local":
      return refusal("runner_unavailable", `no local runner is configured on this host, so ${did}.`);
  }
}
