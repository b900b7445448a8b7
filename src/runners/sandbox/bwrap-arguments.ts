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
import { prlimitOptions, type SandboxResources } from "./limits.js";

/** The extra descriptors bubblewrap reads (the child's fd numbers, after stdin/stdout/stderr). */
export const SANDBOX_FDS = { seccomp: 3, status: 4, passwd: 5, group: 6, hosts: 7, block: 8 } as const;

/** Everything the argument vector depends on; no host lookups happen while building it. */
export interface BwrapPlan {
  readonly features: BwrapFeatures;
  /** The snapshot folder as bubblewrap (the sandbox user) can open it: the snapshot itself or its portal. */
  readonly skillSource: string;
  /** The proxy socket as bubblewrap can open it, when the run has a proxy. */
  readonly proxySocketSource?: string;
  readonly rootEntries: readonly RootEntry[];
  /** Whether `/etc/alternatives` is bound (an interpreter resolves through it). */
  readonly alternatives: boolean;
  readonly resources: SandboxResources;
  /** Inside-sandbox programs, all under `/usr`. */
  readonly prlimit: string;
  readonly shell: string;
  readonly socat?: string;
  /** The interpreter's argv (absolute paths under `/usr`), then the script inside the sandbox. */
  readonly command: readonly string[];
  readonly scriptInside: string;
  readonly interpreter: "node" | "other";
  /**
   * Hold the sandbox at its start until a byte arrives on {@link SANDBOX_FDS.block}: the
   * runner first makes sure its first process is in the run's cgroups.
   */
  readonly block?: boolean;
}

/**
 * bubblewrap's arguments, in the order bubblewrap applies them: namespaces and identity;
 * the read-only system (`/usr`, the loader's links, a few `/etc` files, the generated
 * users); `/proc` and a read-only `/dev`; the snapshot at {@link SKILL_MOUNT}; the proxy
 * socket when there is one; the size-capped `/tmp`; the seccomp filter and status pipe;
 * the root made read-only last; then the command, wrapped in `prlimit` (and the proxy
 * bridge). Mounts are listed for the sandbox's sake only: nothing else of the host exists in it.
 */
export function bwrapArguments(plan: BwrapPlan): string[] {
  const args: string[] = ["--unshare-all", "--unshare-user"];
  if (plan.features.disableUserns) args.push("--disable-userns");
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
  for (const entry of plan.rootEntries) {
    if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev");
  const readOnlyData = (fd: number, path: string): void => {
    if (plan.features.perms) args.push("--perms", "0444");
    args.push("--ro-bind-data", String(fd), path);
  };
  readOnlyData(SANDBOX_FDS.passwd, "/etc/passwd");
  readOnlyData(SANDBOX_FDS.group, "/etc/group");
  readOnlyData(SANDBOX_FDS.hosts, "/etc/hosts");
  for (const path of ETC_FILES) args.push("--ro-bind-try", path, path);
  if (plan.alternatives) args.push("--ro-bind", "/etc/alternatives", "/etc/alternatives");
  args.push("--ro-bind", plan.skillSource, SKILL_MOUNT);
  if (plan.proxySocketSource !== undefined)
    args.push("--ro-bind", plan.proxySocketSource, PROXY_SOCKET_MOUNT);
  if (plan.features.tmpfsSize) args.push("--size", String(plan.resources.tmpBytes));
  args.push("--tmpfs", "/tmp", "--chdir", "/tmp");
  args.push("--seccomp", String(SANDBOX_FDS.seccomp));
  if (plan.features.jsonStatus) args.push("--json-status-fd", String(SANDBOX_FDS.status));
  if (plan.block === true) args.push("--block-fd", String(SANDBOX_FDS.block));
  args.push("--remount-ro", "/", "--");
  args.push(plan.prlimit, ...prlimitOptions(plan.resources, plan.interpreter), "--");
  if (plan.proxySocketSource !== undefined && plan.socat !== undefined)
    args.push(plan.shell, "-c", proxyBridgeScript(plan.socat), "skillgate-proxy-bridge");
  args.push(...plan.command, plan.scriptInside);
  return args;
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
