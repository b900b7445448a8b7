import { join } from "node:path";
import { SANDBOX_FDS } from "./bwrap-arguments.js";
import { SETPRIV_DROP_ROOT } from "./layout.js";

/**
 * The root-only portal: a private mount namespace (`unshare --mount`) in which the run's
 * snapshot, and its proxy socket when needed, are bound onto targets in a fresh folder the
 * sandbox user can reach, before bubblewrap starts there.
 */
export interface PortalPlan {
  readonly unshare: string;
  readonly mount: string;
  /** The POSIX shell that reads the sources and makes the binds. */
  readonly shell: string;
  /** A fresh 0755 folder with the bind targets made (see {@link portalTargets}). */
  readonly folder: string;
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
  /** Root only: bind the snapshot (and socket) through a private mount namespace first. */
  readonly portal?: PortalPlan;
}

/** Where the portal binds the snapshot, the proxy socket and the workspace, in its folder. */
export function portalTargets(folder: string): {
  readonly skill: string;
  readonly socket: string;
  readonly workspace: string;
} {
  return {
    skill: join(folder, "skill"),
    socket: join(folder, "proxy.sock"),
    workspace: join(folder, "workspace"),
  };
}

/** Where the portal binds the run's extra folder number `index` (see {@link portalSources}). */
export function portalMountTarget(folder: string, index: number): string {
  return join(folder, `mount-${index}`);
}

const PORTAL_FD = SANDBOX_FDS.portal;

/**
 * The portal's shell, run by `unshare --mount` with `MOUNT FOLDER -- COMMAND…`: reads lines
 * from descriptor 8 ({@link SANDBOX_FDS}.portal): the snapshot folder, the proxy socket and
 * the workspace (each may be empty: not through the portal), then any extra folders (each
 * bound onto `mount-N`, N from 0, see {@link portalMountTarget}), and `complete`; binds them
 * onto the folder's targets (the workspace with its submounts) with the given `mount`
 * program, only ever inside the private mount namespace `unshare` made for this run, and
 * execs the command. A line holding a backslash is decoded with `printf %b` (see
 * {@link portalSources}). Anything missing or failing exits 125 before bubblewrap starts.
 */
export const PORTAL_SCRIPT = [
  'mount=$1; folder=$2; shift 2; [ "$1" = -- ] || exit 125; shift',
  `take() { IFS= read -r line <&${PORTAL_FD} || exit 125; case $line in *\\\\*) line=$(printf '%bx' "$line"); line=\${line%x} ;; esac; }`,
  "take; skill=$line",
  "take; socket=$line",
  "take; workspace=$line",
  "n=0",
  'while take; [ "$line" != complete ]; do eval "m$n=\\$line"; n=$((n + 1)); done',
  `exec ${PORTAL_FD}<&-`,
  '[ -z "$skill" ] || "$mount" --bind "$skill" "$folder/skill" || exit 125',
  '[ -z "$socket" ] || "$mount" --bind "$socket" "$folder/proxy.sock" || exit 125',
  '[ -z "$workspace" ] || "$mount" --rbind "$workspace" "$folder/workspace" || exit 125',
  "i=0",
  'while [ "$i" -lt "$n" ]; do eval "source=\\$m$i"; "$mount" --bind "$source" "$folder/mount-$i" || exit 125; i=$((i + 1)); done',
  'exec "$@"',
].join("\n");

/**
 * The portal's input: the snapshot folder, the socket and the workspace to bind (any may be
 * left out), the extra folders, and the completion mark, one a line. Backslashes and line breaks in a path are escaped
 * (`\\`, `\n`) so each stays on one line; the script decodes them.
 */
export function portalSources(
  skill: string | undefined,
  socket: string | undefined,
  workspace?: string,
  mounts: readonly string[] = [],
): Buffer {
  const line = (path: string | undefined): string =>
    (path ?? "").replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
  const extra = mounts.map((path) => `${line(path)}\n`).join("");
  return Buffer.from(`${line(skill)}\n${line(socket)}\n${line(workspace)}\n${extra}complete\n`, "utf8");
}

/**
 * The argv to spawn. Each program execs the next, so the spawned pid ends up being
 * bubblewrap itself: `[setpriv (dies with this process)] [unshare --mount sh (binds the
 * portal)] [setpriv (drops host root to 65534, no capabilities, no new privileges; dies with
 * this process)] bwrap …`.
 */
export function launchCommand(plan: LaunchPlan): string[] {
  const tail: string[] = [];
  if (plan.setpriv !== undefined && (plan.dropRoot === true || plan.deathSignal === true)) {
    tail.push(plan.setpriv);
    if (plan.dropRoot === true) tail.push(...SETPRIV_DROP_ROOT, "--no-new-privs");
    if (plan.deathSignal === true) tail.push("--pdeathsig", "SIGKILL");
    tail.push("--");
  }
  tail.push(plan.bwrap, ...plan.bwrapArguments);
  const portal = plan.portal;
  if (portal === undefined) return tail;
  const head =
    plan.deathSignal === true && plan.setpriv !== undefined
      ? [plan.setpriv, "--pdeathsig", "SIGKILL", "--"]
      : [];
  return [
    ...head,
    portal.unshare,
    "--mount",
    "--propagation",
    "private",
    "--",
    portal.shell,
    "-c",
    PORTAL_SCRIPT,
    "skillgate-sandbox-portal",
    portal.mount,
    portal.folder,
    "--",
    ...tail,
  ];
}
