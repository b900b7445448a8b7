import type { InterpreterMount } from "../interpreters/prefix-mounts.js";
import type { BwrapFeatures } from "./host-tools.js";
import {
  ETC_FILES,
  PROXY_BRIDGE_PORT,
  PROXY_SOCKET_MOUNT,
  type RootEntry,
  SANDBOX_GID,
  SANDBOX_HOSTNAME,
  SANDBOX_UID,
  SKILL_MOUNT,
} from "./layout.js";
import { dashUlimitPairs, prlimitOptions, type SandboxResources } from "./limits.js";

/** A run's workspace as bubblewrap binds it (docs/running-scripts.md, "The workspace"). */
export interface BwrapWorkspace {
  /** The real folder on the host, opened by the sandbox user. */
  readonly source: string;
  /** Where it appears inside, and the script's working folder. */
  readonly path: string;
  readonly writable: boolean;
  /** Files (relative, `/`-separated) bound read-only over themselves in a writable workspace. */
  readonly readOnlyFiles: readonly string[];
}

/**
 * The extra descriptors of the launch chain (the child's fd numbers, after stdin, stdout and
 * stderr): bubblewrap's, and the portal's sources (launcher.ts), below 10 because the shell
 * that reads them (dash) takes only single-digit descriptors.
 */
export const SANDBOX_FDS = {
  seccomp: 3,
  status: 4,
  passwd: 5,
  group: 6,
  hosts: 7,
  portal: 8,
  args: 9,
  block: 10,
} as const;

/**
 * What every run of one shape shares: bubblewrap's command line, fixed when the launch chain
 * is spawned, which may be before the run is known (a prestarted sandbox, sandbox-pool.ts).
 */
export interface BwrapShape {
  readonly features: BwrapFeatures;
  readonly rootEntries: readonly RootEntry[];
  /** The size of the private `/tmp`. */
  readonly tmpBytes: number;
  /** The shell inside the sandbox that runs {@link LAUNCHER_SCRIPT}, under `/usr`. */
  readonly shell: string;
}

/** One run's part of bubblewrap's arguments, read from {@link SANDBOX_FDS.args} when the run starts. */
export interface BwrapRun {
  /**
   * The script's whole environment, set after `--clearenv`. Left out when this bubblewrap
   * lacks `--clearenv`: the environment was then given to the spawn itself.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The snapshot folder as bubblewrap (the sandbox user) can open it: the snapshot itself or its portal. */
  readonly skillSource: string;
  /** The proxy socket as bubblewrap can open it, when the run has a proxy. */
  readonly proxySocketSource?: string;
  /**
   * Extra folders of the run (a skill's package environment, read-only; an environment
   * being built, writable), each as bubblewrap can open it, bound after the snapshot.
   */
  readonly mounts?: readonly BoundMount[];
  /** Whether `/etc/alternatives` is bound (an interpreter resolves through it). */
  readonly alternatives: boolean;
  /** The interpreter's folders outside `/usr`, bound read-only (docs/running-scripts.md, "Interpreters"). */
  readonly interpreterMounts?: readonly InterpreterMount[];
  readonly resources: SandboxResources;
  /** Inside-sandbox programs, all under `/usr`. */
  readonly prlimit: string;
  readonly shell: string;
  readonly socat?: string;
  /** The interpreter's argv (under `/usr` or inside its mounts), then the script inside the sandbox. */
  readonly command: readonly string[];
  readonly scriptInside: string;
  /** The script's own command-line arguments, after its path (checked: no NUL, bounded). */
  readonly argv?: readonly string[];
  readonly interpreter: "node" | "other";
  /**
   * The launcher sets the limits with its shell's `ulimit` instead of running `prlimit`
   * (only when that shell is dash, whose letters and units {@link dashUlimitPairs} uses).
   */
  readonly shellLimits?: boolean;
  /**
   * Hold the sandbox at its start until a byte arrives on {@link SANDBOX_FDS.block}: the
   * runner first makes sure its first process is in the run's cgroups.
   */
  readonly block?: boolean;
  /** The project folder, bound at its own path, where the script starts instead of `/tmp`. */
  readonly workspace?: BwrapWorkspace;
}

/** One extra folder of a run: bubblewrap's source, the path inside, and whether the run may write to it. */
export interface BoundMount {
  readonly source: string;
  readonly target: string;
  readonly writable: boolean;
}

/** The environment variable the launcher requires last, so arguments cut short never run anything. */
const COMPLETE = "SKILLGATE_LAUNCH";

/**
 * The sandbox's first program: it sets the run's limits given in `SKILLGATE_LIMITS` (dash's
 * `ulimit` letters and values, see {@link dashUlimitPairs}; the command then has no
 * `prlimit`), rebuilds the run's command from `SKILLGATE_ARG_0…N-1` (`SKILLGATE_ARGC` of
 * them), removes those variables, and becomes the command. The command
 * travels in the environment because bubblewrap takes the command only from its own command
 * line, which is fixed before the run is known. It runs nothing (exit 125) unless
 * `SKILLGATE_LAUNCH=complete`, the last argument written, is there: a writer that died
 * half-way, or no writer at all, starts nothing.
 */
export const LAUNCHER_SCRIPT = [
  `[ "$${COMPLETE}" = complete ] || { echo "HOST: the sandbox's launch arguments were incomplete; nothing ran." >&2; exit 125; }`,
  'case "$SKILLGATE_ARGC" in "" | *[!0-9]*) exit 125 ;; esac',
  'case "$SKILLGATE_LIMITS" in *[!\\ pvfc0-9]*) exit 125 ;; esac',
  "set -- $SKILLGATE_LIMITS",
  'while [ "$#" -ge 2 ]; do ulimit "-$1" "$2" || exit 125; shift 2; done',
  "set --",
  "i=0",
  'while [ "$i" -lt "$SKILLGATE_ARGC" ]; do',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  '  eval "[ \\"\\${SKILLGATE_ARG_$i+set}\\" = set ] || exit 125; set -- \\"\\$@\\" \\"\\$SKILLGATE_ARG_$i\\"; unset SKILLGATE_ARG_$i"',
  "  i=$((i + 1))",
  "done",
  '[ "$#" -gt 0 ] || exit 125',
  `unset SKILLGATE_ARGC SKILLGATE_LIMITS ${COMPLETE}`,
  'exec "$@"',
].join("\n");

/** `$0` of the launcher, naming the run on bubblewrap's command line (leftover checks look for it). */
export function launcherName(runId: string): string {
  return `skillgate-sandbox-${runId}`;
}

/**
 * bubblewrap's command line, in the order bubblewrap applies it: namespaces and identity;
 * the read-only system (`/usr`, the loader's links, a few `/etc` files, the generated
 * users); `/proc` and a read-only `/dev`; the size-capped `/tmp`; the seccomp filter and
 * status pipe; then the run's own arguments from {@link SANDBOX_FDS.args} (its environment,
 * the snapshot at {@link SKILL_MOUNT}, the proxy socket); the run id; the root made
 * read-only after every mount; and the command: the run's own when it is known (see
 * {@link runCommand}), else the launcher, which takes it from the environment. bubblewrap
 * blocks reading the run's arguments before it does anything else, so a chain can be
 * spawned (and put in its cgroups) ahead of its run. Mounts are listed for the sandbox's
 * sake only: nothing else of the host exists in it.
 */
export function bwrapCommandLine(shape: BwrapShape, runId: string, command?: readonly string[]): string[] {
  const args: string[] = ["--unshare-all", "--unshare-user"];
  if (shape.features.disableUserns) args.push("--disable-userns");
  args.push(
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_GID),
    "--hostname",
    SANDBOX_HOSTNAME,
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
  );
  for (const entry of shape.rootEntries) {
    if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev");
  const readOnlyData = (fd: number, path: string): void => {
    if (shape.features.perms) args.push("--perms", "0444");
    args.push("--ro-bind-data", String(fd), path);
  };
  readOnlyData(SANDBOX_FDS.passwd, "/etc/passwd");
  readOnlyData(SANDBOX_FDS.group, "/etc/group");
  readOnlyData(SANDBOX_FDS.hosts, "/etc/hosts");
  for (const path of ETC_FILES) args.push("--ro-bind-try", path, path);
  if (shape.features.tmpfsSize) args.push("--size", String(shape.tmpBytes));
  // The working folder is the run's (`/tmp`, or its workspace): see bwrapRunArguments.
  args.push("--tmpfs", "/tmp");
  args.push("--seccomp", String(SANDBOX_FDS.seccomp));
  if (shape.features.jsonStatus) args.push("--json-status-fd", String(SANDBOX_FDS.status));
  args.push("--args", String(SANDBOX_FDS.args));
  // After the run's --clearenv, and on the command line, where leftover checks can see it.
  args.push("--setenv", "SKILLGATE_RUN_ID", runId);
  args.push("--remount-ro", "/", "--");
  if (command !== undefined) args.push(...command);
  else args.push(shape.shell, "-c", LAUNCHER_SCRIPT, launcherName(runId));
  return args;
}

/**
 * The run's command inside the sandbox: the interpreter, the script and its argv, wrapped in
 * `prlimit` (unless the launcher sets the limits) and the proxy bridge.
 */
export function runCommand(run: BwrapRun, withPrlimit = true): string[] {
  const command = withPrlimit ? [run.prlimit, ...prlimitOptions(run.resources, run.interpreter), "--"] : [];
  if (run.proxySocketSource !== undefined && run.socat !== undefined)
    command.push(run.shell, "-c", proxyBridgeScript(run.socat), "skillgate-proxy-bridge");
  command.push(...run.command, run.scriptInside, ...(run.argv ?? []));
  return command;
}

/**
 * The run's own arguments, read by bubblewrap from {@link SANDBOX_FDS.args}: the script's
 * environment (after `--clearenv`), the interpreter's folders, the snapshot and the proxy socket, the hold on
 * `--block-fd`, and, for a chain started with the launcher, the command, with the
 * launcher's completion mark last.
 */
export function bwrapRunArguments(run: BwrapRun, launcher: boolean): string[] {
  const args: string[] = [];
  const setenv = (name: string, value: string): void => {
    args.push("--setenv", name, value);
  };
  if (run.env !== undefined) {
    args.push("--clearenv");
    for (const [name, value] of Object.entries(run.env)) setenv(name, value);
  }
  if (run.alternatives) args.push("--ro-bind", "/etc/alternatives", "/etc/alternatives");
  // bubblewrap takes one --chdir (it warns on a second), so it comes with the run. The
  // workspace goes first: an interpreter inside it (a project's .venv) stays read-only on top.
  if (run.workspace !== undefined) args.push(...workspaceArguments(run.workspace));
  else args.push("--chdir", "/tmp");
  for (const mount of run.interpreterMounts ?? []) args.push("--ro-bind", mount.source, mount.target);
  args.push("--ro-bind", run.skillSource, SKILL_MOUNT);
  for (const mount of run.mounts ?? [])
    args.push(mount.writable ? "--bind" : "--ro-bind", mount.source, mount.target);
  if (run.proxySocketSource !== undefined) args.push("--ro-bind", run.proxySocketSource, PROXY_SOCKET_MOUNT);
  if (run.block === true) args.push("--block-fd", String(SANDBOX_FDS.block));
  if (!launcher) return args;
  const shellLimits = run.shellLimits === true;
  if (shellLimits) setenv("SKILLGATE_LIMITS", dashUlimitPairs(run.resources, run.interpreter));
  const command = runCommand(run, !shellLimits);
  setenv("SKILLGATE_ARGC", String(command.length));
  for (const [index, part] of command.entries()) setenv(`SKILLGATE_ARG_${index}`, part);
  setenv(COMPLETE, "complete");
  return args;
}

/**
 * The workspace's binds: the folder at its own path (read-only unless writable), each file
 * with a second name read-only over itself, and the working folder. They follow the private
 * `/tmp` on bubblewrap's command line, so a workspace under `/tmp` lands on that tmpfs and
 * the rest of `/tmp` stays the sandbox's own.
 */
function workspaceArguments(workspace: BwrapWorkspace): string[] {
  const args = [workspace.writable ? "--bind" : "--ro-bind", workspace.source, workspace.path];
  if (workspace.writable)
    for (const file of workspace.readOnlyFiles)
      args.push("--ro-bind", `${workspace.source}/${file}`, `${workspace.path}/${file}`);
  args.push("--chdir", workspace.path);
  return args;
}

/**
 * The arguments as bubblewrap's `--args` reads them: each ended by a NUL. A NUL inside one
 * would split it into two and shift every argument after it (an injected option), so any
 * is refused with an error.
 */
export function encodeArguments(args: readonly string[]): Buffer {
  for (const arg of args) if (arg.includes("\0")) throw new Error("an argument holds a NUL byte");
  return Buffer.from(args.map((arg) => `${arg}\0`).join(""), "utf8");
}

/** `/proc/net/tcp`'s local address of the bridge's listening socket: 127.0.0.1, port in hex. */
const BRIDGE_ADDRESS = `0100007F:${PROXY_BRIDGE_PORT.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * Starts socat on the sandbox's own loopback, forwarding each connection to the proxy's
 * socket, waits until it listens (reading `/proc/net/tcp` with shell builtins only, a short
 * sleep after the first tries), then becomes the script. socat lives in the sandbox's PID
 * namespace, so it ends with the run like everything else. Exit 125 with a `HOST:` line if
 * the bridge does not come up within about two seconds.
 */
export function proxyBridgeScript(socat: string): string {
  return [
    `${socat} TCP-LISTEN:${PROXY_BRIDGE_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_MOUNT} </dev/null &`,
    "bridge=$!",
    `ready() { while read -r _ local _ state _; do [ "$local" = ${BRIDGE_ADDRESS} ] && [ "$state" = 0A ] && return 0; done </proc/net/tcp; return 1; }`,
    "tries=0",
    "until ready; do",
    "  tries=$((tries + 1))",
    `  if [ "$tries" -gt 400 ] || ! kill -0 "$bridge" 2>/dev/null; then echo "HOST: the sandbox's network bridge to the proxy did not start; the script did not run." >&2; exit 125; fi`,
    '  if [ "$tries" -gt 100 ]; then sleep 0.005; fi',
    "done",
    'exec "$@"',
  ].join("\n");
}
