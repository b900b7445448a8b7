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
  /**
   * setpriv, when the chain starts with it: to drop host root to the sandbox user first
   * (`dropRoot`), and to make the chain die with this process (`deathSignal`).
   */
  readonly setpriv?: string;
  /** Drop host root to uid and gid 65534, no groups, capabilities or new privileges (skillgate runs as root). */
  readonly dropRoot?: boolean;
  /**
   * SIGKILL the chain when this process dies (`--pdeathsig`, kept across setpriv's own
   * identity change and bubblewrap's exec), even before bubblewrap has read its arguments:
   * a chain started ahead of its run must never go on without the process that owns it.
   */
  readonly deathSignal?: boolean;
  /** Root only: binds made in a private mount namespace (needs `unshare`, `mount` and `shell`). */
  readonly portal: readonly PortalBind[];
  readonly shell?: string;
  readonly unshare?: string;
  readonly mount?: string;
}

/**
 * Runs the steps given as arguments, then execs the command after `--`: `bind MOUNT SOURCE
 * TARGET` bind-mounts with the given `mount` program, only ever inside the private mount
 * namespace `unshare` made for this run. Any failure exits 125 before bubblewrap starts.
 */
export const LAUNCH_SCRIPT = [
  'while [ "$#" -gt 0 ]; do',
  '  case "$1" in',
  '    --) shift; exec "$@" ;;',
  '    bind) "$2" --bind "$3" "$4" || exit 125; shift 4 ;;',
  "    *) exit 125 ;;",
  "  esac",
  "done",
  "exit 125",
].join("\n");

/**
 * The argv to spawn. Each program execs the next, so the spawned pid ends up being
 * bubblewrap itself: `[unshare --mount sh (binds the portal)] [setpriv (drops host root to
 * 65534, no capabilities, no new privileges; dies with this process)] bwrap …`.
 */
export function launchCommand(plan: LaunchPlan): string[] {
  const tail: string[] = [];
  if (plan.setpriv !== undefined && (plan.dropRoot === true || plan.deathSignal === true)) {
    tail.push(plan.setpriv);
    if (plan.dropRoot === true)
      tail.push(
        `--reuid=${SANDBOX_UID}`,
        `--regid=${SANDBOX_GID}`,
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
      );
    if (plan.deathSignal === true) tail.push("--pdeathsig", "SIGKILL");
    tail.push("--");
  }
  tail.push(plan.bwrap, ...plan.bwrapArguments);
  if (plan.portal.length === 0) return tail;
  const { unshare, mount, shell } = plan;
  if (unshare === undefined || mount === undefined || shell === undefined)
    throw new Error("launch: unshare, mount and a shell are needed for the portal");
  const steps = plan.portal.flatMap((bind) => ["bind", mount, bind.source, bind.target]);
  const wrapped = [shell, "-c", LAUNCH_SCRIPT, "skillgate-sandbox-launch", ...steps, "--", ...tail];
  return [unshare, "--mount", "--propagation", "private", "--", ...wrapped];
}
