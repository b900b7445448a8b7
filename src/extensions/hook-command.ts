import { type ChildProcess, spawn } from "node:child_process";
import { holdGroup, killGroup } from "../core/process-groups.js";
import { clipAtWord } from "../core/text.js";

/** A hook command's default time limit: 10 s. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
/** A hook command's default output cap, per stream: 64 KiB. Beyond it the command is killed. */
export const DEFAULT_HOOK_OUTPUT_BYTES = 64 * 1024;
/**
 * After the command's shell exited and its group was killed, how long to wait for its pipes
 * to close. Only a process that left the group (`setsid`) can hold them open that long; the
 * pipes are then closed from this side and the hook ends anyway.
 */
const DRAIN_MS = 500;
/** Characters of a command shown in a failure note. */
const COMMAND_IN_NOTE = 80;
/** Characters of stderr shown in a failure note. */
const STDERR_IN_NOTE = 200;

/** One run of a hook command. */
export interface HookCommandSpec {
  /** Run with `/bin/sh -c`. */
  readonly command: string;
  /** Written to the command's stdin, which is then closed. */
  readonly input: string;
  readonly cwd: string;
  /** The whole environment of the command. */
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  /** Bytes allowed on stdout and on stderr each; one more and the command is killed. */
  readonly maxOutputBytes: number;
}

/** How a hook command ended when it ended by itself. */
export interface HookCommandExit {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a hook command with `/bin/sh -c` as the leader of a new process group. It resolves
 * with the exit code and output when the shell exits by itself, and rejects with an Error
 * whose message is short enough for a note when the command cannot start, runs past
 * `timeoutMs`, prints more than `maxOutputBytes` on a stream, or is killed by a signal.
 * Whatever way it ends, the whole group is killed at once (SIGKILL): nothing a hook starts
 * outlives it, except a process that left the group on purpose (`setsid`).
 */
export function runHookCommand(spec: HookCommandSpec): Promise<HookCommandExit> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn("/bin/sh", ["-c", spec.command], {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      reject(new Error(`hook command could not start (${errorCode(error)}): ${shown(spec.command)}`));
      return;
    }
    const group = child.pid;
    const release = group !== undefined ? holdGroup(group) : () => {};
    const streams = { stdout: new Capture(), stderr: new Capture() };
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let failure: Error | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      if (group !== undefined) {
        killGroup(group);
        release();
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (failure !== undefined) reject(failure);
      else if (exit === undefined || exit.code === null) {
        const signal = exit?.signal ?? "a signal";
        reject(new Error(`hook command was killed by ${signal}: ${shown(spec.command)}`));
      } else resolve({ exitCode: exit.code, stdout: streams.stdout.text(), stderr: streams.stderr.text() });
    };
    const fail = (error: Error): void => {
      if (failure !== undefined || settled) return;
      failure = error;
      finish();
    };

    timers.push(
      setTimeout(
        () =>
          fail(new Error(`hook command timed out after ${seconds(spec.timeoutMs)}: ${shown(spec.command)}`)),
        spec.timeoutMs,
      ),
    );
    for (const name of ["stdout", "stderr"] as const) {
      child[name]?.on("data", (chunk: Buffer) => {
        if (!streams[name].push(chunk, spec.maxOutputBytes)) {
          fail(
            new Error(
              `hook command printed more than ${bytes(spec.maxOutputBytes)} on ${name}: ${shown(spec.command)}`,
            ),
          );
        }
      });
    }
    // A command that never reads stdin, or exits first, closes the pipe: that is not an error.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(spec.input);
    child.once("error", (error) => {
      if (exit === undefined)
        fail(new Error(`hook command could not start (${errorCode(error)}): ${shown(spec.command)}`));
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      // Whatever the shell left running in its group goes with it.
      if (group !== undefined) killGroup(group);
      timers.push(setTimeout(finish, DRAIN_MS));
    });
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      if (exit === undefined) exit = { code, signal };
      finish();
    });
  });
}

/** The last non-empty line of a command's stderr, clipped for a note; empty when there is none. */
export function stderrForNote(stderr: string): string {
  const lines = stderr.split(/\r?\n/).filter((line) => line.trim() !== "");
  return clipAtWord((lines.at(-1) ?? "").trim(), STDERR_IN_NOTE);
}

/** A command as shown in a note: one line, clipped to 80 characters. */
export function shown(command: string): string {
  return clipAtWord(command.replace(/\s+/g, " ").trim(), COMMAND_IN_NOTE);
}

/** The Error a hook throws for a command that exited with a code its shape does not accept. */
export function exitError(command: string, exit: HookCommandExit): Error {
  const detail = stderrForNote(exit.stderr);
  const said = detail === "" ? "" : ` (${detail})`;
  return new Error(`hook command exited with code ${exit.exitCode}${said}: ${shown(command)}`);
}

/** One output stream, kept whole up to the cap. */
class Capture {
  readonly #chunks: Buffer[] = [];
  #size = 0;

  /** Keeps `chunk`; false when the stream went past `limit` (nothing more is kept). */
  push(chunk: Buffer, limit: number): boolean {
    this.#size += chunk.length;
    if (this.#size > limit) return false;
    this.#chunks.push(chunk);
    return true;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

function seconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))} s`;
}

function bytes(count: number): string {
  if (count >= 1024 * 1024 && count % (1024 * 1024) === 0) return `${count / (1024 * 1024)} MiB`;
  if (count >= 1024 && count % 1024 === 0) return `${count / 1024} KiB`;
  return `${count} bytes`;
}
