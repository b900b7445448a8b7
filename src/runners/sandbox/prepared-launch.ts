import { randomBytes } from "node:crypto";
import { removeTree } from "../../core/remove-tree.js";
import type { CgroupSupport } from "./cgroup-detect.js";
import { createRunCgroup, type RunCgroup, runCgroupName } from "./cgroup-run.js";
import type { SandboxResources } from "./limits.js";
import { type LaunchedChain, spawnLaunch } from "./sandbox-spawn.js";

/** Everything a launch needs that does not depend on its run: what it spawns and where it is contained. */
export interface LaunchShape {
  /**
   * Equal for launches that can serve the same runs: the command line, the spawn's
   * environment and files, the cgroups and their limits.
   */
  readonly key: string;
  /**
   * The chain's argv for a run id; with the run's command when it is known, else with the
   * launcher, which takes the command from the run's arguments; with the launch's portal
   * folder when the shape has a portal.
   */
  argv(runId: string, command?: readonly string[], portalFolder?: string): readonly string[];
  /**
   * Root only: launches of this shape bind the snapshot through the portal. `makeFolder`
   * makes a launch's folder with its bind targets, or throws when there is none the sandbox
   * user can reach ({@link PORTAL_UNREACHABLE}).
   */
  readonly portal?: { makeFolder(): string };
  readonly env: Readonly<Record<string, string>>;
  readonly files: Readonly<Record<number, string>>;
  readonly cgroups: CgroupSupport;
  readonly resources: SandboxResources;
}

/** A spawned chain with its own run id and cgroups, waiting for its run's arguments. */
export interface PreparedLaunch {
  readonly runId: string;
  readonly chain: LaunchedChain;
  /** The run's cgroups; `undefined` without cgroups (off, none on this host, or not made: rlimits only). */
  readonly cgroup: RunCgroup | undefined;
  /** Why the run's cgroups could not be made when the shape wanted them (see {@link createRunCgroup}). */
  readonly cgroupProblem?: string;
  /**
   * `true` once the chain's first process is in every one of its cgroups (at once without
   * cgroups); `false` when it could not be put there.
   */
  readonly joined: Promise<boolean>;
  /** The portal's folder, when the launch has a portal: its targets are where the snapshot is bound. */
  readonly portalFolder?: string;
  /** Kills the chain if it still runs, removes its cgroups and its portal's folder. */
  dispose(): Promise<void>;
  /** The same, blocking, for a process that is exiting (cgroups: at most a brief wait, then the next sweep). */
  disposeNow(): void;
}

/** The error of a portal launch when no folder the sandbox user can reach could be made. */
export const PORTAL_UNREACHABLE = "no temporary folder the sandbox user can reach";

/**
 * Makes a launch: a fresh run id, the run's cgroups named after it (with the limits written),
 * the chain spawned, and its move into the cgroups started. Nothing of the run runs until its
 * arguments are written: bubblewrap blocks reading them first. A launch made for a known run
 * (`forRun`) carries its command and a `--block-fd` pipe when it has cgroups (the chain's
 * `block`), so the run can start before the move is done; one made ahead carries the launcher.
 */
export function prepareLaunch(
  shape: LaunchShape,
  forRun?: { readonly command: readonly string[] },
): PreparedLaunch | { readonly error: string } {
  const runId = randomBytes(8).toString("hex");
  let portalFolder: string | undefined;
  try {
    portalFolder = shape.portal?.makeFolder();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const attempt = createRunCgroup(shape.cgroups, runCgroupName(runId), shape.resources);
  const cgroup = attempt.cgroup;
  const chain = spawnLaunch({
    argv: shape.argv(runId, forRun?.command, portalFolder),
    env: shape.env,
    files: shape.files,
    block: forRun !== undefined && cgroup !== undefined,
    portal: portalFolder !== undefined,
  });
  const removeFolder = (): void => {
    try {
      // The binds live only in the chain's private mount namespace: on the host these are empty.
      if (portalFolder !== undefined) removeTree(portalFolder);
    } catch {
      // a leftover empty folder under the temporary folder; nothing of the run is in it
    }
  };
  if ("error" in chain) {
    void cgroup?.remove();
    removeFolder();
    return chain;
  }
  const joined =
    cgroup === undefined || chain.pid <= 0
      ? Promise.resolve(chain.pid > 0)
      : cgroup.join(chain.pid).then(
          () => cgroup.holds(chain.pid),
          () => false,
        );
  return {
    runId,
    chain,
    cgroup,
    ...(attempt.problem !== undefined ? { cgroupProblem: attempt.problem } : {}),
    joined,
    ...(portalFolder !== undefined ? { portalFolder } : {}),
    async dispose() {
      chain.kill();
      await cgroup?.remove();
      removeFolder();
    },
    disposeNow() {
      chain.kill();
      cgroup?.removeNow(200);
      removeFolder();
    },
  };
}
