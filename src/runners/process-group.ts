import { type ChildProcess, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { holdGroup, killGroup } from "../core/process-groups.js";
import type { RunLimits, RunResult } from "./contract.js";
import { OutputCapture } from "./output-capture.js";
import { refusal } from "./refusal.js";

/** How long a process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/**
 * After the script exited and its group was killed, how long to wait for its pipes to close.
 * Only a process that left the group (`setsid`) can hold them open longer; then the pipes
 * are closed from this side and the run ends anyway.
 */
const DRAIN_MS = 500;

/** One child to run in a process group of its own. */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The whole environment: nothing of this process's own is passed unless listed here. */
  readonly env: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. */
  readonly input: string;
  readonly limits: RunLimits;
  readonly signal?: AbortSignal;
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /** Between SIGTERM and SIGKILL (default {@link DEFAULT_KILL_GRACE_MS}). */
  readonly killGraceMs?: number;
}

/** Sends a signal to every process of a group; a group that is gone already is fine. */
export { killGroup } from "../core/process-groups.js";

/**
 * Runs a command as the leader of a new process group (`detached`), with exactly the
 * given environment, stdin holding only `input`, and stdout and stderr capped. The timeout
 * and an abort send SIGTERM to the whole group, then SIGKILL after the grace. When the
 * leader exits for any reason, whatever is left of its group is killed at once: nothing
 * started by the script outlives the run, except a process that left the group on purpose
 * (`setsid`), which only a sandbox's own PID namespace can contain.
 */
export function runInProcessGroup(spec: ProcessSpec): Promise<RunResult> {
  const started = performance.now();
  if (spec.signal?.aborted) return Promise.resolve(interrupted(started));
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve(notStarted(spec, error));
      return;
    }
    const stdout = new OutputCapture(spec.limits.maxOutputBytes, streamTo(spec, "stdout"));
    const stderr = new OutputCapture(spec.limits.maxOutputBytes, streamTo(spec, "stderr"));
    const group = child.pid;
    const release = group !== undefined ? holdGroup(group) : () => {};
    let ending: "timed_out" | "interrupted" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const stop = (reason: "timed_out" | "interrupted"): void => {
      if (ending !== undefined || exit !== undefined || group === undefined) return;
      ending = reason;
      killGroup(group, "SIGTERM");
      timers.push(setTimeout(() => killGroup(group, "SIGKILL"), spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS));
    };
    const onAbort = (): void => stop("interrupted");
    timers.push(setTimeout(() => stop("timed_out"), spec.limits.timeoutMs));
    spec.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (result: RunResult): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (group !== undefined) killGroup(group, "SIGKILL");
      release();
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };
    const result = (): RunResult => {
      const code = exit?.code ?? null;
      const killedBy = exit?.signal ?? null;
      const status = ending ?? (code === 0 ? "ok" : "failed");
      return {
        status,
        exitCode: code,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        durationMs: performance.now() - started,
        ...(killedBy !== null && ending === undefined ? { signal: killedBy } : {}),
      };
    };

    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    // A script that never reads stdin, or exits first, closes the pipe: that is not an error.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(spec.input);
    child.once("error", (error) => {
      if (exit === undefined && group === undefined) finish(notStarted(spec, error));
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      if (group !== undefined) killGroup(group, "SIGKILL");
      timers.push(setTimeout(() => finish(result()), DRAIN_MS));
    });
    child.once("close", () => {
      if (exit === undefined) exit = { code: child.exitCode, signal: child.signalCode };
      finish(result());
    });
  });
}

function streamTo(spec: ProcessSpec, stream: "stdout" | "stderr"): ((text: string) => void) | undefined {
  const listener = spec.onOutput;
  return listener === undefined ? undefined : (text) => listener(stream, text);
}

/** The result of a run stopped by its caller's abort signal before it answered; `started` is `performance.now()` at its start. */
export function interrupted(started: number): RunResult {
  return {
    status: "interrupted",
    exitCode: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: performance.now() - started,
  };
}

function notStarted(spec: ProcessSpec, error: unknown): RunResult {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  return refusal(
    "runner_unavailable",
    `${spec.command} could not be started (${code}), so the script did not run.`,
  );
}
