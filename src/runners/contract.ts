import type { JsonValue } from "../core/safe-json.js";
import type { ExecutionMode, NetworkMode } from "../skill/governance.js";
import type { ScriptLanguage } from "../skill/scripts.js";
import type { EnforcedLimits } from "./enforced-limits.js";
import type { PackageEnvironment } from "./environments/environment-store.js";
import type { WorkspaceChanges } from "./workspace/changes.js";
import type { CheckedWorkspace, RunWorkspace } from "./workspace/workspace.js";

/** How a run ended. `refused`: the runner would not start it (a hash mismatch, a language it cannot run). */
export type RunStatus = "ok" | "failed" | "timed_out" | "interrupted" | "refused";

/** Caps on one run. */
export interface RunLimits {
  readonly timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; the rest is dropped and flagged. */
  readonly maxOutputBytes: number;
}

/** The default caps: 60 s and 64 KiB of each stream. */
export const DEFAULT_RUN_LIMITS: RunLimits = { timeoutMs: 60_000, maxOutputBytes: 64 * 1024 };

/** One script to run, with everything the runner needs and nothing it must look up itself. */
export interface RunRequest {
  readonly skill: string;
  /** The full content hash the call was approved against; the runner verifies it before running. */
  readonly hash: string;
  /** The skill's folder as the catalog knows it; runners copy it to a verified snapshot. */
  readonly folder: string;
  readonly execution: ExecutionMode;
  /** Relative to the skill folder, e.g. `scripts/run.py`. */
  readonly script: string;
  readonly language: ScriptLanguage;
  /**
   * Normalised and schema-checked arguments without `argv`: the script gets them as JSON on
   * stdin and in SKILLGATE_SKILL_ARGS.
   */
  readonly arguments: { readonly [key: string]: JsonValue };
  /**
   * The script's command-line arguments, put after the script's path on the interpreter's
   * command line (docs/running-scripts.md, "Arguments"). Absent or empty: none. Runners
   * check it again ({@link RunRefusalCode} `invalid_argv`).
   */
  readonly argv?: readonly string[];
  readonly limits: RunLimits;
  readonly signal?: AbortSignal;
  /** The tool call this run serves, so what happens during it (a refused connection) joins that call's audit trail. */
  readonly call?: {
    readonly requestId: string;
    readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  };
  /** Streaming output for callers who want it: only what is kept (up to the cap) is streamed. */
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /** The skill's `skillgate.allowed-domains` (lower-case ASCII, optional `:port`), for the sandbox's proxy. */
  readonly allowedDomains?: readonly string[];
  /** The skill's `skillgate.network`. */
  readonly network?: NetworkMode;
  /**
   * The skill's built package environment of this hash (docs/running-scripts.md,
   * "Packages"): the sandbox binds it read-only, the local runner points `PYTHONPATH` and
   * `NODE_PATH` at it.
   */
  readonly environment?: PackageEnvironment;
  /**
   * Set by the router once the hash was verified and the snapshot made; `folder` is then the
   * snapshot's folder. A runner given a request without it verifies and snapshots itself.
   */
  readonly snapshot?: VerifiedSnapshot;
  /**
   * The project folder the run sees, and how (docs/running-scripts.md, "The workspace"): the
   * script starts in it. Without it the run has no workspace and starts in a private folder.
   */
  readonly workspace?: RunWorkspace;
  /**
   * Set by the router once it checked {@link workspace}: the real folder to mount and the
   * files to keep read-only. A runner given a workspace without it refuses the run.
   */
  readonly checkedWorkspace?: CheckedWorkspace;
}

/** A skill's verified bytes in a runner-owned, content-addressed, read-only folder. */
export interface VerifiedSnapshot {
  /** `<data>/runs/snapshots/<full hash>`: files 0444, folders 0555. */
  readonly folder: string;
  /** The full content hash the folder was verified against. */
  readonly hash: string;
  /** True when an existing snapshot of the same hash was used instead of copying. */
  readonly reused: boolean;
}

/** What a run produced. */
export interface RunResult {
  readonly status: RunStatus;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  /** For `refused`: the `HOST:` text a model is shown. */
  readonly message?: string;
  /**
   * For `refused`: a stable code (`skill_changed`, `symlink_not_allowed`, `not_trusted`, …;
   * see {@link RunRefusalCode}), so callers and tests need not match on the text.
   */
  readonly code?: string;
  /** For a script killed by a signal skillgate did not send: its name (`SIGSEGV`, …). */
  readonly signal?: string;
  /** For a run that started, from a runner that can say: each limit and what enforced it. */
  readonly limits?: EnforcedLimits;
  /**
   * For a run that started with a workspace it could write to (or under the local runner,
   * which cannot keep it read-only): every file and folder it created, changed or deleted
   * there, from a bounded before/after comparison (see {@link WorkspaceChanges}).
   */
  readonly workspaceChanges?: WorkspaceChanges;
  /** For a run sent to a named server (`skillgate.execution: node`): the node's name, for the audit trail. */
  readonly node?: string;
}

/**
 * The refusal codes of the router, snapshots, languages and the local runner. Other runners
 * (the sandbox) add their own; {@link RunResult.code} is text so they need not be listed here.
 */
export type RunRefusalCode =
  | "skill_changed"
  | "skill_unreadable"
  | "symlink_not_allowed"
  | "hardlink_not_allowed"
  | "special_file_not_allowed"
  | "setuid_not_allowed"
  | "snapshot_failed"
  | "language_unavailable"
  | "arguments_too_large"
  | "invalid_argv"
  | "invalid_script"
  | "not_trusted"
  | "runner_unavailable";

/** Runs scripts of one execution mode (or, for the router, of every mode). */
export interface Runner {
  run(request: RunRequest): Promise<RunResult>;
  /**
   * Cheap checks the router makes before it hashes and snapshots anything (is the skill
   * trusted, can this language run here): a refusal, or `undefined` to go on.
   */
  admit?(request: RunRequest): RunResult | undefined;
}
