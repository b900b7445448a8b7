import type { RunLimits } from "../contract.js";
import type { EnforcedLimits, LimitMechanism, RunCgroupReport } from "../enforced-limits.js";

/**
 * What one sandboxed run may use besides time and output (docs/running-scripts.md, "Limits").
 * The defaults are what a container run with `--pids-limit 256 --memory 1g --cpus 2` gets, plus
 * caps on files and `/tmp` that a read-only container gets from its tmpfs.
 */
export interface SandboxResources {
  /** Processes (and threads) of the sandbox user in this sandbox, the sandbox's own init included. */
  readonly processes: number;
  /** Memory of the whole run where cgroups allow; else the address space of each process (see docs). */
  readonly memoryBytes: number;
  /** CPUs' worth of time per period; enforced only with a cgroup cpu controller. */
  readonly cpus: number;
  /** The largest file a script may write (RLIMIT_FSIZE): past it, writes fail with EFBIG. */
  readonly fileSizeBytes: number;
  /** Size of the private `/tmp`, the only writable place: past it, writes fail with ENOSPC. */
  readonly tmpBytes: number;
}

/** The defaults: 256 processes, 1 GiB, 2 CPUs, 64 MiB files, 128 MiB of `/tmp`. */
export const DEFAULT_SANDBOX_RESOURCES: SandboxResources = {
  processes: 256,
  memoryBytes: 1024 * 1024 * 1024,
  cpus: 2,
  fileSizeBytes: 64 * 1024 * 1024,
  tmpBytes: 128 * 1024 * 1024,
};

/** Time and output caps of the contract, with the sandbox's resources (defaults for any left out). */
export type SandboxLimits = RunLimits & Partial<SandboxResources>;

/**
 * Address space Node needs beyond what a script allocates: V8 reserves about 700 MiB of
 * virtual memory before it runs a line, so an RLIMIT_AS of 1 GiB would leave a Node script
 * almost nothing. Node gets this much more address space, and its heap is capped at the
 * memory limit with `--max-old-space-size` instead.
 */
export const NODE_ADDRESS_SPACE_HEADROOM_BYTES = 1024 * 1024 * 1024;

/** The resources of a run: the defaults overridden by what the caller gave. */
export function sandboxResources(limits: SandboxLimits): SandboxResources {
  const pick = (key: keyof SandboxResources): number => {
    const value = limits[key];
    return typeof value === "number" && Number.isFinite(value) && value > 0
      ? Math.floor(value)
      : DEFAULT_SANDBOX_RESOURCES[key];
  };
  return {
    processes: pick("processes"),
    memoryBytes: pick("memoryBytes"),
    cpus: limits.cpus !== undefined && limits.cpus > 0 ? limits.cpus : DEFAULT_SANDBOX_RESOURCES.cpus,
    fileSizeBytes: pick("fileSizeBytes"),
    tmpBytes: pick("tmpBytes"),
  };
}

/**
 * `prlimit` options for the command inside the sandbox, soft and hard alike so the script
 * cannot raise them back. RLIMIT_NPROC is set here, inside the sandbox's own user namespace,
 * on purpose: since Linux 5.14 the kernel counts processes per (user namespace, uid), so the
 * cap holds for this sandbox alone and concurrent runs, all uid 65534 on the host, do not
 * share it. Core dumps are off (they would fill `/tmp`).
 */
export function prlimitOptions(resources: SandboxResources, interpreter: "node" | "other"): string[] {
  const addressSpace =
    interpreter === "node"
      ? resources.memoryBytes + NODE_ADDRESS_SPACE_HEADROOM_BYTES
      : resources.memoryBytes;
  const both = (value: number): string => `${value}:${value}`;
  return [
    `--nproc=${both(resources.processes)}`,
    `--as=${both(addressSpace)}`,
    `--fsize=${both(resources.fileSizeBytes)}`,
    `--core=${both(0)}`,
  ];
}

/**
 * The same caps for dash's `ulimit` builtin, as `letter value` pairs: processes (`p`),
 * address space in KiB (`v`), file size and core size in 512-byte blocks (`f`, `c`); dash
 * sets soft and hard alike. Values are rounded down to whole units, never up.
 */
export function dashUlimitPairs(resources: SandboxResources, interpreter: "node" | "other"): string {
  const addressSpace =
    interpreter === "node"
      ? resources.memoryBytes + NODE_ADDRESS_SPACE_HEADROOM_BYTES
      : resources.memoryBytes;
  return [
    `p ${resources.processes}`,
    `v ${Math.floor(addressSpace / 1024)}`,
    `f ${Math.floor(resources.fileSizeBytes / 512)}`,
    "c 0",
  ].join(" ");
}

/**
 * `NODE_OPTIONS` that caps a Node script's old-generation heap at three quarters of the
 * memory limit: the young generation, code and buffers need the rest, so a heap that grows
 * without end ends in Node's own "heap out of memory" error rather than the OOM killer.
 */
export function nodeHeapOption(resources: SandboxResources): string {
  return `--max-old-space-size=${Math.max(16, Math.floor((resources.memoryBytes * 3) / 4 / (1024 * 1024)))}`;
}

/**
 * What a sandboxed run was held to and by what, given its cgroup: the pids and memory
 * controllers add to the rlimits (which always apply, per process), only the cpu controller
 * caps CPU, and the file size, `/tmp`, time and output caps are the same with or without.
 */
export function sandboxEnforcedLimits(
  resources: SandboxResources,
  limits: RunLimits,
  cgroup: RunCgroupReport,
): EnforcedLimits {
  const controller = (name: "pids" | "memory" | "cpu"): LimitMechanism[] =>
    cgroup.version !== "none" && cgroup.controllers.includes(name) ? [`cgroup-${cgroup.version}`] : [];
  return {
    processes: { value: resources.processes, by: [...controller("pids"), "rlimit"] },
    memoryBytes: { value: resources.memoryBytes, by: [...controller("memory"), "rlimit"] },
    cpus: { value: resources.cpus, by: controller("cpu") },
    fileSizeBytes: { value: resources.fileSizeBytes, by: ["rlimit"] },
    tmpBytes: { value: resources.tmpBytes, by: ["tmpfs"] },
    timeoutMs: { value: limits.timeoutMs, by: ["timer"] },
    outputBytes: { value: limits.maxOutputBytes, by: ["output-cap"] },
    cgroup,
  };
}
