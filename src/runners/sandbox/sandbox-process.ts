import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import { OutputCapture } from "../output-capture.js";
import { SANDBOX_FDS } from "./bwrap-arguments.js";

/**
 * After bubblewrap exited, how long its pipes may stay open. Everything the script started
 * lives in the sandbox's PID namespace and dies with it, so they close at once; this only
 * bounds a kernel that is slow to tear the namespace down.
 */
const DRAIN_MS = 500;

/** One spawn of the launch chain. */
export interface SandboxProcessSpec {
  readonly argv: readonly string[];
  /** The whole environment; it reaches the script unchanged (bubblewrap and setpriv pass it on). */
  readonly env: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. */
  readonly input: string;
  /** Files opened read-only for this run and given to bubblewrap at these descriptor numbers. */
  readonly files: Readonly<Record<number, string>>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /** Called once the chain is spawned, with its pid (bubblewrap's, once the chain has exec'd). */
  readonly onSpawn?: (pid: number) => void;
  /**
   * Set when bubblewrap was given `--block-fd`: called once bubblewrap reports the sandbox's
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

// Launch chains still alive: killed when this process exits, so a crash or process.exit()
// in the middle of a run tears its sandbox down (bubblewrap's --die-with-parent does the rest).
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) killChain(child);
  });
}

/**
 * SIGKILLs the launch chain: its process group (it was spawned as a group leader) and
 * bubblewrap itself. bubblewrap's --die-with-parent then SIGKILLs the sandbox's init, and
 * the kernel kills every other process of that PID namespace: the whole tree, `setsid`
 * daemons included, with nothing for the script to catch.
 */
function killChain(child: ChildProcess): void {
  if (child.pid === undefined) return;
  for (const target of [-child.pid, child.pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/**
 * Spawns the chain with stdin, stdout, stderr and bubblewrap's descriptors as pipes, writes
 * the inputs, captures output with caps, enforces the timeout and the abort signal, and
 * reads bubblewrap's JSON status. Never rejects.
 */
export function runSandboxProcess(spec: SandboxProcessSpec): Promise<SandboxProcessOutcome> {
  const started = performance.now();
  installExitHook();
  return new Promise((resolve) => {
    const stdout = new OutputCapture(spec.maxOutputBytes, streamTo(spec, "stdout"));
    const stderr = new OutputCapture(spec.maxOutputBytes, streamTo(spec, "stderr"));
    const statusChunks: Buffer[] = [];
    const program = spec.argv[0];
    const fail = (error: unknown): SandboxProcessOutcome => ({
      ending: "spawn_failed",
      exitCode: null,
      signal: null,
      stdout: "",
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: performance.now() - started,
      status: {},
      spawnError: (error as NodeJS.ErrnoException).code ?? String(error),
    });
    if (program === undefined) {
      resolve(fail(new Error("empty command")));
      return;
    }
    let child: ChildProcess;
    const opened: number[] = [];
    try {
      const files: Record<number, number> = {};
      for (const [fd, path] of Object.entries(spec.files)) {
        const descriptor = openSync(path, "r");
        opened.push(descriptor);
        files[Number(fd)] = descriptor;
      }
      child = spawn(program, spec.argv.slice(1), {
        env: { ...spec.env },
        detached: true,
        stdio: sandboxStdio(files, spec.beforeRelease !== undefined),
      });
    } catch (error) {
      resolve(fail(error));
      return;
    } finally {
      // The child has its own copies now (or never started).
      for (const descriptor of opened) closeSync(descriptor);
    }
    live.add(child);
    let ending: "timed_out" | "interrupted" | "setup_failed" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = (reason: "timed_out" | "interrupted" | "setup_failed"): void => {
      if (ending !== undefined || exit !== undefined) return;
      ending = reason;
      killChain(child);
    };
    const onAbort = (): void => stop("interrupted");
    timers.push(setTimeout(() => stop("timed_out"), Math.max(1, spec.timeoutMs)));
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();

    const finish = (spawnError?: unknown): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      // Once bubblewrap has exited the kernel has torn the sandbox down; its pid may even be reused.
      if (exit === undefined) killChain(child);
      live.delete(child);
      for (const stream of descriptors) (stream as Readable | Writable | null | undefined)?.destroy();
      if (spawnError !== undefined && exit === undefined) {
        resolve(fail(spawnError));
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

    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    if (child.pid !== undefined) spec.onSpawn?.(child.pid);
    const descriptors = child.stdio as readonly unknown[];
    const block = descriptors[SANDBOX_FDS.block] as Writable | null | undefined;
    block?.on("error", () => undefined);
    let released = spec.beforeRelease === undefined;
    if (released) block?.end();
    const release = (started: SandboxStatus): void => {
      released = true;
      const check = spec.beforeRelease?.(started) ?? Promise.resolve(true);
      check.then(
        (ok) => (ok ? block?.end("x") : stop("setup_failed")),
        () => stop("setup_failed"),
      );
    };
    const status = descriptors[SANDBOX_FDS.status] as Readable | null | undefined;
    status?.on("data", (chunk: Buffer) => {
      // The status is a few hundred bytes; anything past 64 KiB is not bubblewrap's.
      if (statusChunks.reduce((total, part) => total + part.length, 0) < 64 * 1024) statusChunks.push(chunk);
      if (released) return;
      const started = parseStatus(Buffer.concat(statusChunks).toString("utf8"));
      if (started.childPid !== undefined) release(started);
    });
    status?.on("error", () => undefined);
    // A script that never reads stdin, or exits first, closes the pipe: that is not an error.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(spec.input);
    child.once("error", (error) => {
      if (exit === undefined) finish(error);
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      timers.push(setTimeout(() => finish(), DRAIN_MS));
    });
    child.once("close", () => {
      if (exit === undefined) exit = { code: child.exitCode, signal: child.signalCode };
      finish();
    });
  });
}

/** O_CLOEXEC as `/proc/self/fdinfo` prints flags (octal). */
const O_CLOEXEC = 0o2000000;
let devNull: number | undefined;

/**
 * The spawn's stdio: pipes for stdin, stdout, stderr and bubblewrap's status (and its block
 * descriptor when the run waits for cgroups), the given files at their numbers, and /dev/null
 * over every other descriptor this process holds without close-on-exec. Such descriptors
 * (inherited from whoever started skillgate: a shell's or a supervisor's pipe) would
 * otherwise pass through bubblewrap into the sandbox, a channel to the host that no namespace
 * closes. libuv cannot close a child's descriptor, but it can put another file in its place;
 * /proc/self/fdinfo says which ones need it.
 */
export function sandboxStdio(files: Readonly<Record<number, number>>, block: boolean): StdioOptions {
  const stdio: (number | "pipe" | "ignore")[] = ["pipe", "pipe", "pipe"];
  const set = (fd: number, value: number | "pipe"): void => {
    while (stdio.length <= fd) stdio.push("ignore");
    stdio[fd] = value;
  };
  set(SANDBOX_FDS.status, "pipe");
  if (block) set(SANDBOX_FDS.block, "pipe");
  for (const [fd, descriptor] of Object.entries(files)) set(Number(fd), descriptor);
  for (const fd of inheritableDescriptors()) {
    if (fd <= 2 || (fd < stdio.length && stdio[fd] !== "ignore")) continue;
    devNull ??= openSync("/dev/null", "r");
    set(fd, devNull);
  }
  return stdio;
}

/** Descriptors of this process without close-on-exec, from /proc/self/fdinfo (empty where /proc is missing). */
export function inheritableDescriptors(): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd)) continue;
    try {
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // closed while listing (the descriptor readdir itself used, for one)
    }
  }
  return found.sort((left, right) => left - right);
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
