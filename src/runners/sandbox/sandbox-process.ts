import { performance } from "node:perf_hooks";
import { OutputCapture } from "../output-capture.js";
import type { LaunchedChain } from "./sandbox-spawn.js";

/**
 * After bubblewrap exited, how long its pipes may stay open. Everything the script started
 * lives in the sandbox's PID namespace and dies with it, so they close at once; this only
 * bounds a kernel that is slow to tear the namespace down.
 */
const DRAIN_MS = 500;

/** One run of a spawned chain. */
export interface SandboxProcessSpec {
  /** The chain, spawned for this run (or ahead of it) and never used for another. */
  readonly chain: LaunchedChain;
  /** bubblewrap's `--args` data: written at once, then the pipe is closed. */
  readonly arguments: Buffer;
  /** The portal's bind sources (launcher.ts), for a chain with a portal. */
  readonly portal?: Buffer;
  /** Written to stdin, which is then closed. */
  readonly input: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /**
   * Set when the chain was given `--block-fd`: called once bubblewrap reports the sandbox's
   * first process, which then waits; it is released when this resolves `true`, and the whole
   * chain is killed (`setup_failed`) when it resolves `false`.
   */
  readonly beforeRelease?: (status: SandboxStatus) => Promise<boolean>;
}

/** What bubblewrap reported on its status descriptor. */
export interface SandboxStatus {
  /** The host pid of the sandbox's first process. */
  readonly childPid?: number;
  /** The inode of the sandbox's PID namespace: every process of the run is in it. */
  readonly pidNamespace?: number;
  readonly exitCode?: number;
}

/** How the spawn ended. */
export interface SandboxProcessOutcome {
  readonly ending: "exited" | "timed_out" | "interrupted" | "spawn_failed" | "setup_failed";
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  readonly status: SandboxStatus;
  /** `spawn_failed`: why. */
  readonly spawnError?: string;
}

/**
 * Runs a spawned chain: writes its arguments and stdin, captures output with caps, enforces
 * the timeout and the abort signal (both SIGKILL the chain, which takes the sandbox with it),
 * and reads bubblewrap's JSON status. Never rejects.
 */
export function runSandboxProcess(spec: SandboxProcessSpec): Promise<SandboxProcessOutcome> {
  const started = performance.now();
  const { chain } = spec;
  return new Promise((resolve) => {
    const stdout = new OutputCapture(spec.maxOutputBytes, streamTo(spec, "stdout"));
    const stderr = new OutputCapture(spec.maxOutputBytes, streamTo(spec, "stderr"));
    const statusChunks: Buffer[] = [];
    let ending: "timed_out" | "interrupted" | "setup_failed" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = (reason: "timed_out" | "interrupted" | "setup_failed"): void => {
      if (ending !== undefined || exit !== undefined) return;
      ending = reason;
      chain.kill();
    };
    const onAbort = (): void => stop("interrupted");
    timers.push(setTimeout(() => stop("timed_out"), Math.max(1, spec.timeoutMs)));
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();

    const finish = (spawnError?: string): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (exit === undefined) chain.kill();
      for (const pipe of chain.pipes) pipe.destroy();
      if (spawnError !== undefined) {
        resolve({
          ending: "spawn_failed",
          exitCode: null,
          signal: null,
          stdout: "",
          stderr: "",
          stdoutTruncated: false,
          stderrTruncated: false,
          durationMs: performance.now() - started,
          status: {},
          spawnError,
        });
        return;
      }
      resolve({
        ending: ending ?? "exited",
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        durationMs: performance.now() - started,
        status: parseStatus(Buffer.concat(statusChunks).toString("utf8")),
      });
    };

    chain.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    chain.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    let released = spec.beforeRelease === undefined;
    if (released) chain.block?.end();
    const release = (first: SandboxStatus): void => {
      released = true;
      const check = spec.beforeRelease?.(first) ?? Promise.resolve(true);
      check.then(
        (ok) => (ok ? chain.block?.end("x") : stop("setup_failed")),
        () => stop("setup_failed"),
      );
    };
    chain.status.on("data", (chunk: Buffer) => {
      // The status is a few hundred bytes; anything past 64 KiB is not bubblewrap's.
      if (statusChunks.reduce((total, part) => total + part.length, 0) < 64 * 1024) statusChunks.push(chunk);
      if (released) return;
      const first = parseStatus(Buffer.concat(statusChunks).toString("utf8"));
      if (first.childPid !== undefined) release(first);
    });
    if (ending === undefined) {
      if (spec.portal !== undefined) chain.portal?.end(spec.portal);
      chain.args.end(spec.arguments);
    }
    chain.stdin.end(spec.input);
    void chain.exited.then((exited) => {
      if (exited.error !== undefined) {
        finish(exited.error);
        return;
      }
      exit = { code: exited.code, signal: exited.signal };
      timers.push(setTimeout(() => finish(), DRAIN_MS));
    });
    void chain.closed.then(() => finish());
  });
}

function streamTo(
  spec: SandboxProcessSpec,
  stream: "stdout" | "stderr",
): ((text: string) => void) | undefined {
  const listener = spec.onOutput;
  return listener === undefined ? undefined : (text) => listener(stream, text);
}

/**
 * bubblewrap writes one JSON object when the sandbox is up (`child-pid` and the namespace
 * inodes) and one when it ends (`exit-code`), each on its own line.
 */
export function parseStatus(text: string): SandboxStatus {
  let status: { childPid?: number; pidNamespace?: number; exitCode?: number } = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null) continue;
    const record = parsed as Record<string, unknown>;
    const number = (key: string): number | undefined =>
      typeof record[key] === "number" && Number.isInteger(record[key]) ? (record[key] as number) : undefined;
    const childPid = number("child-pid");
    const pidNamespace = number("pid-namespace");
    const exitCode = number("exit-code");
    status = {
      ...status,
      ...(childPid !== undefined ? { childPid } : {}),
      ...(pidNamespace !== undefined ? { pidNamespace } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
    };
  }
  return status;
}
