import { spawn } from "node:child_process";

/** What a checker process did. */
export type CheckerRun =
  | { readonly kind: "exited"; readonly exitCode: number; readonly stdout: string; readonly stderr: string }
  | { readonly kind: "missing" }
  | { readonly kind: "timeout" }
  | { readonly kind: "crashed"; readonly detail: string };

/** How to run one checker. */
export interface CheckerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Written to the process's standard input, then closed; empty by default. */
  readonly input?: Buffer;
  readonly timeoutMs: number;
  /** The whole environment of the child: checkers get a clean one, never the caller's. */
  readonly env: NodeJS.ProcessEnv;
}

/** Output kept per stream; a checker's message is short, anything past this is noise. */
const MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * Runs a syntax checker as a real child process, with a hard timeout (SIGKILL), bounded
 * output and no shell. The checker parses the script; nothing here runs the script itself.
 */
export function runChecker(command: CheckerCommand): Promise<CheckerRun> {
  return new Promise((resolve) => {
    const child = spawn(command.command, [...command.args], {
      cwd: command.cwd,
      env: command.env,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
      // Its own process group, so a timeout also ends anything the checker started.
      detached: process.platform !== "win32",
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const sizes = { stdout: 0, stderr: 0 };
    let timedOut = false;
    let settled = false;
    const finish = (run: CheckerRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(run);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, () => child.kill("SIGKILL"));
      // A grandchild may still hold the pipes open: stop waiting for them.
      child.stdout.destroy();
      child.stderr.destroy();
      finish({ kind: "timeout" });
    }, command.timeoutMs);
    const keep = (chunks: Buffer[], key: "stdout" | "stderr") => (chunk: Buffer) => {
      if (sizes[key] >= MAX_OUTPUT_BYTES) return;
      chunks.push(chunk.subarray(0, MAX_OUTPUT_BYTES - sizes[key]));
      sizes[key] += chunk.length;
    };
    child.stdout.on("data", keep(stdout, "stdout"));
    child.stderr.on("data", keep(stderr, "stderr"));
    child.on("error", (error: NodeJS.ErrnoException) => {
      finish(error.code === "ENOENT" ? { kind: "missing" } : { kind: "crashed", detail: error.message });
    });
    child.on("close", (exitCode, signal) => {
      if (timedOut) return finish({ kind: "timeout" });
      if (exitCode === null) return finish({ kind: "crashed", detail: `killed by ${signal ?? "a signal"}` });
      finish({
        kind: "exited",
        exitCode,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
    // A checker that exits before reading its input closes the pipe; that is not an error here.
    child.stdin.on("error", () => undefined);
    child.stdin.end(command.input ?? Buffer.alloc(0));
  });
}

function killGroup(pid: number | undefined, fallback: () => void): void {
  if (pid === undefined || process.platform === "win32") {
    fallback();
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    fallback();
  }
}
