import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Child processes for the observe tests, under `node --import tsx`. Each child prints
 * `ready`, waits for a line on stdin, works, and prints `done`: the barrier lets a test
 * start several children's work at the same moment, so their writes overlap.
 */

/** The repository root, where `--import tsx` resolves. */
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** What a child printed and how it ended. */
export interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started child: `ready` resolves once it waits at the barrier; `go()` releases it. */
export interface StartedChild {
  readonly ready: Promise<void>;
  go(): void;
  readonly result: Promise<ChildResult>;
}

/** Starts `test/observe/children/<script> …arguments`. */
export function startChild(script: string, argumentsList: readonly string[]): StartedChild {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", path, ...argumentsList], {
    cwd: repositoryRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith("ready\n")) markReady();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      markReady();
      resolve({ code, stdout, stderr });
    });
  });
  return { ready, go: () => child.stdin.end("go\n"), result };
}

/** Starts every child, waits until all are ready, releases them together and waits for their ends. */
export async function runTogether(
  children: readonly { script: string; arguments: readonly string[] }[],
): Promise<ChildResult[]> {
  const started = children.map((child) => startChild(child.script, child.arguments));
  await Promise.all(started.map((child) => child.ready));
  for (const child of started) child.go();
  return Promise.all(started.map((child) => child.result));
}

/** In a child: prints `ready` and resolves when the parent sends its line. */
export function waitForGo(): Promise<void> {
  process.stdout.write("ready\n");
  return new Promise((resolve) => {
    process.stdin.once("data", () => resolve());
    process.stdin.once("end", () => resolve());
  });
}
