import type { RunResult } from "../contract.js";
import type { InterpreterMount } from "../interpreters/prefix-mounts.js";
import type { CheckedWorkspace } from "../workspace/workspace.js";
import type { CgroupSupport } from "./cgroup-detect.js";
import type { SandboxLimits } from "./limits.js";
import type { SandboxPool } from "./sandbox-pool.js";

/** The sandbox's network: none at all, or only skillgate's filtering proxy through its Unix socket. */
export type SandboxNetwork =
  | { readonly mode: "none" }
  | {
      readonly mode: "proxy";
      /** The proxy's listening Unix socket on the host; it does the filtering. */
      readonly socketPath: string;
      /** The skill's allowed domains, for the record: the proxy enforces them, not the sandbox. */
      readonly allowedDomains: readonly string[];
    };

/** One script to run in a sandbox, from a snapshot that was already verified. */
export interface SandboxRunRequest {
  /** The verified, read-only snapshot of the skill; it appears at `/skill`. */
  readonly snapshotFolder: string;
  /** Relative to the snapshot, e.g. `scripts/run.py`. */
  readonly script: string;
  /**
   * The interpreter's argv (e.g. `["/usr/bin/python3", "-B"]`): its program under `/usr` or
   * inside {@link interpreterMounts}; the script's path inside is appended.
   */
  readonly command: readonly string[];
  /**
   * The interpreter's folders outside `/usr` (its prefix, a venv's base prefix), bound
   * read-only (docs/running-scripts.md, "Interpreters"); each must be reachable by the sandbox user.
   */
  readonly interpreterMounts?: readonly InterpreterMount[];
  /** Given on stdin and in SKILLGATE_SKILL_ARGS. */
  readonly argumentsJson: string;
  /** The script's command-line arguments, after its path inside the sandbox (default none). */
  readonly argv?: readonly string[];
  readonly limits: SandboxLimits;
  readonly network: SandboxNetwork;
  readonly signal?: AbortSignal;
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /**
   * Extra host folders to bind, each at its absolute `target` inside: read-only unless
   * `writable` (a package environment is bound read-only for runs and writable only for its
   * own build, see docs/running-scripts.md, "Packages").
   */
  readonly mounts?: readonly SandboxMount[];
  /** Variables added to the script's environment (`PYTHONPATH` of a package environment); they may not replace skillgate's own. */
  readonly extraEnvironment?: Readonly<Record<string, string>>;
  /**
   * The run starts Node though its command is not `node` (a package build's shell running
   * npm): Node's limits then apply (address-space headroom, the heap option).
   */
  readonly runsNode?: boolean;
  /** SKILLGATE_SKILL_NAME for the script. */
  readonly skillName?: string;
  /**
   * `auto` (the default) uses the host's cgroups when it has them and reports in the result's
   * `limits` when it has none or the run's could not be made; `required` refuses the run
   * then (`cgroup_unavailable`); `off` ignores the host's cgroups and limits with rlimits only.
   */
  readonly cgroups?: SandboxCgroupMode;
  /**
   * Where run cgroups are made, instead of what this process detects on the host: for a host
   * whose delegated group is known, and for tests that need a group that cannot be made.
   */
  readonly cgroupSupport?: CgroupSupport;
  /**
   * Sandboxes started ahead (see {@link SandboxPool}): the run takes one of its shape when one
   * is ready, and the next is started after it answered; its cgroups are removed after it
   * answered too. Without a pool (or with a closed one) every run starts its own and cleans
   * up before it answers.
   */
  readonly pool?: SandboxPool;
  /**
   * The project folder, checked by the router: bound at its own path (writable only for
   * `write`) and the script's working folder. Without it the script starts in `/tmp`.
   */
  readonly workspace?: CheckedWorkspace;
}

/** One extra host folder of a run (see {@link SandboxRunRequest.mounts}). */
export interface SandboxMount {
  readonly source: string;
  readonly target: string;
  readonly writable: boolean;
}

/** How a run uses cgroups: see {@link SandboxRunRequest.cgroups}. */
export type SandboxCgroupMode = "auto" | "required" | "off";

/** How one run was contained, for callers that want evidence (tests, doctor, audit). */
export interface SandboxRunDetails {
  readonly runId: string;
  /** The inode of the run's PID namespace: every process of the run lived in it. */
  readonly pidNamespace?: number;
  readonly cgroup: "v1" | "v2" | "none";
  /** True when the snapshot or socket was bound through a private mount namespace (root, closed folders). */
  readonly portal: boolean;
  /** True when the run was served by a sandbox started ahead of it (a {@link SandboxPool}'s). */
  readonly prestarted: boolean;
}

/** A run's result with {@link SandboxRunDetails}. */
export type SandboxRunResult = RunResult & { readonly sandbox?: SandboxRunDetails };
