import { SANDBOX_GID, SANDBOX_UID } from "./layout.js";

/** A bind the root-only portal makes in a private mount namespace before bubblewrap starts. */
export interface PortalBind {
  /** What the sandbox user cannot reach by name (e.g. a snapshot under root's 0700 data folder). */
  readonly source: string;
  /** An empty folder or file it can reach, in the run's own temporary folder. */
  readonly target: string;
}

/** The host side of a run: what happens before bubblewrap, as which user. */
export interface LaunchPlan {
  readonly bwrap: string;
  readonly bwrapArguments: readonly string[];
  /** Set when skillgate runs as root: host root is dropped to the sandbox user first. */
  readonly setpriv?: string;
  /** `cgroup.procs` files the chain's first process joins, so everything after starts inside the run's cgroups. */
  readonly cgroupProcsFiles: readonly string[];
  /** Root only: binds made in a private mount namespace (needs `unshare`, `mount` and `shell`). */
  readonly portal: readonly PortalBind[];
  readonly shell?: string;
  readonly unshare?: string;
  readonly mount?: string;
}

/**
 * Runs the steps given as arguments, then the command after `--`: `join FILE` writes the
 * shell's pid (which the command will keep: each step execs) to a `cgroup.procs` file;
 * `bind MOUNT SOURCE TARGET` bind-mounts with the given `mount` program (only ever inside the private mount namespace `unshare`
 * made for this run). Any failure exits 125 before bubblewrap starts.
 */
export const LAUNCH_SCRIPT = [
  'while [ "$#" -gt 0 ]; do',
  '  case "$1" in',
  '    --) shift; exec "$@" ;;',
  '    join) echo "$$" > "$2" || exit 125; shift 2 ;;',
  '    bind) "$2" --bind "$3" "$4" || exit 125; shift 4 ;;',
  "    *) exit 125 ;;",
  "  esac",
  "done",
  "exit 125",
].join("\n");

/**
 * The argv to spawn. Each program execs the next, so the spawned pid ends up being
 * bubblewrap itself: `[unshare --mount] [sh (joins cgroups, binds the portal)] [setpriv
 * (drops host root to 65534, no capabilities, no new privileges)] bwrap …`.
 */
export function launchCommand(plan: LaunchPlan): string[] {
  const tail: string[] = [];
  if (plan.setpriv !== undefined)
    tail.push(
      plan.setpriv,
      `--reuid=${SANDBOX_UID}`,
      `--regid=${SANDBOX_GID}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "--",
    );
  tail.push(plan.bwrap, ...plan.bwrapArguments);
  const steps: string[] = [];
  for (const file of plan.cgroupProcsFiles) steps.push("join", file);
  const { unshare, mount } = plan;
  if (plan.portal.length > 0 && (unshare === undefined || mount === undefined))
    throw new Error("launch: unshare and mount are needed for the portal");
  for (const bind of plan.portal) steps.push("bind", mount ?? "mount", bind.source, bind.target);
  if (steps.length === 0) return tail;
  if (plan.shell === undefined)
    throw new Error("launch: a shell is needed to join cgroups or bind the portal");
  const wrapped = [plan.shell, "-c", LAUNCH_SCRIPT, "skillgate-sandbox-launch", ...steps, "--", ...tail];
  if (plan.portal.length === 0 || unshare === undefined) return wrapped;
  return [unshare, "--mount", "--propagation", "private", "--", ...wrapped];
}
