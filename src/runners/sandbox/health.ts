import { execFile } from "node:child_process";
import { type CgroupSupport, hostCgroupSupport } from "./cgroup-detect.js";
import { type BwrapFeatures, bwrapFeatures, type SandboxTools, sandboxTools } from "./host-tools.js";
import { hostRootEntries, SANDBOX_GID, SANDBOX_UID, SETPRIV_DROP_ROOT } from "./layout.js";
import { DEFAULT_SANDBOX_RESOURCES } from "./limits.js";
import { INSTALL_HINT } from "./messages.js";

/** How one limit is enforced on this host. */
export interface LimitEnforcement {
  /** `cgroup-v2` / `cgroup-v1`: for the whole run; `rlimit`: per process (or per sandbox for processes); `none`: not enforced. */
  readonly by: "cgroup-v2" | "cgroup-v1" | "rlimit" | "tmpfs" | "timer" | "none";
  readonly detail: string;
}

/** What `skillgate doctor` shows about the sandbox. */
export interface SandboxHealth {
  /** True when sandboxed scripts can run here. */
  readonly ok: boolean;
  readonly bubblewrap: {
    readonly found: boolean;
    readonly path?: string;
    readonly version?: string;
    readonly missingOptions: readonly string[];
    /** `--disable-userns`: no user namespaces inside (else only the seccomp filter refuses them). */
    readonly disablesNestedUserNamespaces: boolean;
    /** `--size`: `/tmp` is size-capped (else only RLIMIT_FSIZE caps each file). */
    readonly capsTmpSize: boolean;
  };
  /** Whether an unprivileged user namespace could be made just now, and bubblewrap's words if not. */
  readonly userNamespaces: { readonly usable: boolean; readonly detail: string };
  readonly runsAsRoot: boolean;
  readonly tools: {
    readonly setpriv?: string;
    readonly prlimit?: string;
    readonly socat?: string;
    readonly unshare?: string;
    readonly mount?: string;
  };
  readonly cgroups: { readonly version: CgroupSupport["version"]; readonly note: string };
  readonly limits: {
    readonly processes: LimitEnforcement;
    readonly memory: LimitEnforcement;
    readonly cpu: LimitEnforcement;
    readonly fileSize: LimitEnforcement;
    readonly tmp: LimitEnforcement;
    readonly timeout: LimitEnforcement;
  };
  /** What the host's owner can do to get what is missing, one sentence each. */
  readonly advice: readonly string[];
}

/**
 * Checks the sandbox on this host: bubblewrap and its options, the helper programs, whether
 * an unprivileged user namespace can be made (a real bubblewrap run of `/usr/bin/true` as the
 * sandbox user), and which limits are enforced how. Data only; the doctor prints it.
 */
export async function sandboxHealth(): Promise<SandboxHealth> {
  const tools = sandboxTools();
  const runsAsRoot = process.getuid?.() === 0;
  const features = tools.bwrap !== undefined ? bwrapFeatures(tools.bwrap) : undefined;
  const userNamespaces =
    tools.bwrap !== undefined && features !== undefined
      ? await probeUserNamespace(tools, runsAsRoot)
      : { usable: false, detail: "bubblewrap is not installed" };
  const support = hostCgroupSupport();
  const missingOptions = features?.missing ?? [];
  const ok =
    features !== undefined &&
    missingOptions.length === 0 &&
    userNamespaces.usable &&
    tools.prlimit !== undefined &&
    (!runsAsRoot || tools.setpriv !== undefined);
  return {
    ok,
    bubblewrap: {
      found: tools.bwrap !== undefined,
      ...(tools.bwrap !== undefined ? { path: tools.bwrap } : {}),
      ...(features !== undefined ? { version: features.version } : {}),
      missingOptions,
      disablesNestedUserNamespaces: features?.disableUserns ?? false,
      capsTmpSize: features?.tmpfsSize ?? false,
    },
    userNamespaces,
    runsAsRoot,
    tools: presentTools(tools),
    cgroups: { version: support.version, note: support.note },
    limits: describeLimits(support, features),
    advice: adviceFor(tools, features, userNamespaces.usable, support, runsAsRoot),
  };
}

function presentTools(tools: SandboxTools): SandboxHealth["tools"] {
  const entries = (["setpriv", "prlimit", "socat", "unshare", "mount"] as const).flatMap((name) => {
    const path = tools[name];
    return path === undefined ? [] : [[name, path] as const];
  });
  return Object.fromEntries(entries);
}

/** Which mechanism enforces each limit, given the host's cgroups and bubblewrap. */
export function describeLimits(
  support: CgroupSupport,
  features: BwrapFeatures | undefined,
): SandboxHealth["limits"] {
  const resources = DEFAULT_SANDBOX_RESOURCES;
  const by: LimitEnforcement["by"] = support.version === "v2" ? "cgroup-v2" : "cgroup-v1";
  const has = (controller: "pids" | "memory" | "cpu"): boolean =>
    support.version !== "none" && support.controllers.includes(controller);
  const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MiB`;
  return {
    processes: has("pids")
      ? {
          by,
          detail: `${resources.processes} per run (pids controller), and RLIMIT_NPROC in the sandbox's user namespace`,
        }
      : {
          by: "rlimit",
          detail: `${resources.processes} per run (RLIMIT_NPROC, counted in the sandbox's own user namespace)`,
        },
    memory: has("memory")
      ? {
          by,
          detail: `${mib(resources.memoryBytes)} for the whole run, /tmp included (memory controller); RLIMIT_AS per process too`,
        }
      : {
          by: "rlimit",
          detail: `${mib(resources.memoryBytes)} of address space per process (RLIMIT_AS; Node gets 1 GiB more and a heap cap), not for the run as a whole`,
        },
    cpu: has("cpu")
      ? { by, detail: `${resources.cpus} CPUs (cpu controller quota)` }
      : { by: "none", detail: "not capped: a script may use every CPU until the timeout" },
    fileSize: { by: "rlimit", detail: `${mib(resources.fileSizeBytes)} per file (RLIMIT_FSIZE)` },
    tmp:
      features?.tmpfsSize === true
        ? { by: "tmpfs", detail: `${mib(resources.tmpBytes)} (tmpfs size)` }
        : {
            by: "none",
            detail: "the tmpfs is not size-capped (bubblewrap lacks --size); files are still capped",
          },
    timeout: { by: "timer", detail: "the whole sandbox is killed at the timeout" },
  };
}

function adviceFor(
  tools: SandboxTools,
  features: BwrapFeatures | undefined,
  userNamespacesUsable: boolean,
  support: CgroupSupport,
  runsAsRoot: boolean,
): string[] {
  const advice: string[] = [];
  if (tools.bwrap === undefined || features === undefined)
    advice.push(`Install bubblewrap to run sandboxed scripts. ${INSTALL_HINT}.`);
  else if (features.missing.length > 0)
    advice.push(`bubblewrap ${features.version} lacks ${features.missing.join(", ")}: install 0.8 or later.`);
  else if (!userNamespacesUsable)
    advice.push(
      "Allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 (Debian), or kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04 and later), and user.max_user_namespaces above 0.",
    );
  if (tools.prlimit === undefined || (runsAsRoot && tools.setpriv === undefined))
    advice.push(`Install util-linux (prlimit, setpriv). ${INSTALL_HINT} util-linux.`);
  if (tools.socat === undefined)
    advice.push(`Install socat so skills with allowed domains can reach the proxy. ${INSTALL_HINT}.`);
  if (support.version === "none")
    advice.push(
      "To cap memory for a whole run and CPUs at 2, give skillgate a cgroup: run it under systemd with Delegate=yes (e.g. systemd-run --user -p Delegate=yes skillgate …) for cgroup v2 with pids, memory and cpu, or as root on a cgroup v1 host.",
    );
  else if (
    !(["pids", "memory", "cpu"] as const).every((controller) => support.controllers.includes(controller))
  )
    advice.push(
      `Only ${support.controllers.join(", ")} of pids, memory and cpu are available to skillgate's cgroup; delegate the others to cap them too.`,
    );
  if (features !== undefined && !features.tmpfsSize)
    advice.push("Install a newer bubblewrap (one whose --help lists --size) so /tmp gets a size cap.");
  return advice;
}

/** Runs `/usr/bin/true` in a bare user-namespace sandbox as the sandbox user. */
function probeUserNamespace(
  tools: SandboxTools,
  runsAsRoot: boolean,
): Promise<{ usable: boolean; detail: string }> {
  const bwrap = tools.bwrap ?? "bwrap";
  const rootEntries = hostRootEntries().flatMap((entry) =>
    entry.kind === "symlink"
      ? ["--symlink", entry.target, entry.path]
      : ["--ro-bind", entry.path, entry.path],
  );
  const bwrapArgs = [
    "--unshare-all",
    "--unshare-user",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_GID),
    "--ro-bind",
    "/usr",
    "/usr",
    ...rootEntries,
    "--",
    "/usr/bin/true",
  ];
  const argv =
    runsAsRoot && tools.setpriv !== undefined
      ? [tools.setpriv, ...SETPRIV_DROP_ROOT, "--", bwrap, ...bwrapArgs]
      : [bwrap, ...bwrapArgs];
  return new Promise((resolve) => {
    execFile(argv[0] ?? bwrap, argv.slice(1), { timeout: 10_000, env: {} }, (error, _stdout, stderr) => {
      if (error === null) resolve({ usable: true, detail: "an unprivileged user namespace was made" });
      else resolve({ usable: false, detail: String(stderr).trim().split("\n")[0] || error.message });
    });
  });
}
