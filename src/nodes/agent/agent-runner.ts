import { LocalRunner } from "../../runners/local-runner.js";
import { RunnerRouter } from "../../runners/router.js";
import { SandboxRunner } from "../../runners/sandbox/sandbox-runner.js";
import { SnapshotStore } from "../../runners/snapshot.js";

/** The agent's runner and what stops it. */
export interface AgentRunner {
  readonly router: RunnerRouter;
  /** Stops the sandbox kept ahead for the next run. */
  close(): Promise<void>;
}

/**
 * The runners of a node agent, the same code local runs use (src/runners/): a router over
 * snapshots in `<agent folder>/runs/snapshots`, so every run re-hashes the agent's copy and
 * runs from a verified, read-only snapshot; the bubblewrap sandbox for mode `sandbox`; the
 * local runner for mode `local` (a `.cs` script through `dotnet run`, or every script when the
 * node's owner started the agent with `--runner local`). Every skill the agent holds came
 * from a signed manifest of the controller it enrolled with, so the local runner trusts them
 * all; what decides unconfined or not is the run mode, not a trust list.
 */
export function createAgentRunner(agentFolder: string): AgentRunner {
  const snapshots = new SnapshotStore({ dataFolder: agentFolder });
  const languages = { protectedFolders: [agentFolder] };
  const sandbox = new SandboxRunner({ snapshots, languages });
  const local = new LocalRunner({ dataFolder: agentFolder, snapshots, isTrusted: () => true, languages });
  const router = new RunnerRouter({
    snapshots,
    runners: { sandbox, local },
    protectedFolders: [agentFolder],
  });
  return { router, close: () => sandbox.close() };
}
