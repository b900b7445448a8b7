/**
 * What a run was really held to, and by what (docs/running-scripts.md, "Limits"). A runner
 * that can say reports it on its result, so a caller, the audit log and `skillgate run` never
 * have to guess whether a cgroup was made or the run fell back to rlimits.
 */

/**
 * One mechanism that enforces a limit: a cgroup controller (v1 or v2, for the whole run), an
 * rlimit (set inside the sandbox, per process), the private `/tmp`'s tmpfs size, skillgate's
 * own timer (kills the run at the timeout) or its output cap (drops what is past it).
 */
export type LimitMechanism = "cgroup-v2" | "cgroup-v1" | "rlimit" | "tmpfs" | "timer" | "output-cap";

/** One limit: its value and the mechanisms that enforce it; none means it was not enforced. */
export interface EnforcedLimit {
  readonly value: number;
  readonly by: readonly LimitMechanism[];
}

/** The run's cgroup: which version, which controllers had their limits written, and why there is none. */
export interface RunCgroupReport {
  readonly version: "v1" | "v2" | "none";
  readonly controllers: readonly ("pids" | "memory" | "cpu")[];
  /**
   * Why the run has no cgroup, when it has none: turned off, none on this host (with the
   * detection's note), or one could not be made (`failed` is then true and this says why).
   */
  readonly reason?: string;
  /** True when the host offers cgroups but the run's could not be made: the run fell back to rlimits. */
  readonly failed?: boolean;
}

/** Every limit of a run and how each was enforced. */
export interface EnforcedLimits {
  /** Processes and threads. */
  readonly processes: EnforcedLimit;
  /** Memory: per run with a memory cgroup, else address space per process (rlimit). */
  readonly memoryBytes: EnforcedLimit;
  /** CPUs' worth of time; only a cpu cgroup enforces it. */
  readonly cpus: EnforcedLimit;
  /** The largest file a script may write. */
  readonly fileSizeBytes: EnforcedLimit;
  /** The size of the writable `/tmp`. */
  readonly tmpBytes: EnforcedLimit;
  readonly timeoutMs: EnforcedLimit;
  /** Bytes kept of stdout and of stderr each. */
  readonly outputBytes: EnforcedLimit;
  readonly cgroup: RunCgroupReport;
}

/**
 * The limits as one line of text, such as `processes 256 (cgroup-v1, rlimit); memory
 * 1073741824 (cgroup-v1, rlimit); cpus 2 (cgroup-v1); …; cgroup v1`, for the audit log and
 * the terminal. A limit nothing enforced reads `(not enforced)`.
 */
export function describeEnforcedLimits(limits: EnforcedLimits): string {
  const part = (name: string, limit: EnforcedLimit): string =>
    `${name} ${limit.value} (${limit.by.length === 0 ? "not enforced" : limit.by.join(", ")})`;
  const cgroup =
    limits.cgroup.version === "none"
      ? `no cgroup${limits.cgroup.failed === true ? " (failed)" : ""}${limits.cgroup.reason !== undefined ? `: ${limits.cgroup.reason}` : ""}`
      : `cgroup ${limits.cgroup.version} (${limits.cgroup.controllers.join(", ")})`;
  return [
    part("processes", limits.processes),
    part("memory", limits.memoryBytes),
    part("cpus", limits.cpus),
    part("file", limits.fileSizeBytes),
    part("tmp", limits.tmpBytes),
    part("time-ms", limits.timeoutMs),
    part("output", limits.outputBytes),
    cgroup,
  ].join("; ");
}

/**
 * The mechanisms as a short text for one audit line (at most 256 characters there), such as
 * `cgroup v1 (pids, memory, cpu); processes cgroup-v1+rlimit; memory cgroup-v1+rlimit; cpus
 * cgroup-v1; file rlimit; tmp tmpfs; time timer; output output-cap`. Values are left out (they
 * come from the configuration); a failed cgroup reads `no cgroup (failed)`.
 */
export function auditLimitsText(limits: EnforcedLimits): string {
  const by = (limit: EnforcedLimit): string => (limit.by.length === 0 ? "none" : limit.by.join("+"));
  const cgroup =
    limits.cgroup.version === "none"
      ? `no cgroup${limits.cgroup.failed === true ? " (failed)" : ""}`
      : `cgroup ${limits.cgroup.version} (${limits.cgroup.controllers.join(", ")})`;
  return [
    cgroup,
    `processes ${by(limits.processes)}`,
    `memory ${by(limits.memoryBytes)}`,
    `cpus ${by(limits.cpus)}`,
    `file ${by(limits.fileSizeBytes)}`,
    `tmp ${by(limits.tmpBytes)}`,
    `time ${by(limits.timeoutMs)}`,
    `output ${by(limits.outputBytes)}`,
  ].join("; ");
}
