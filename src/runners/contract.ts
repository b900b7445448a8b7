import type { JsonValue } from "../core/safe-json.js";
import type { ExecutionMode } from "../skill/governance.js";
import type { ScriptLanguage } from "../skill/scripts.js";

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
  /** Normalised and schema-checked arguments: the script gets them as JSON on stdin and in SKILLGATE_SKILL_ARGS. */
  readonly arguments: { readonly [key: string]: JsonValue };
  readonly limits: RunLimits;
  readonly signal?: AbortSignal;
  /** Streaming output for callers who want it. */
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
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
}

/** Runs scripts of one execution mode (or, for the router, of every mode). */
export interface Runner {
  run(request: RunRequest): Promise<RunResult>;
}
