import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll } from "vitest";

/**
 * Worker processes for the Redis tests (redis-test-worker.ts run by node + tsx), so a test can
 * SIGKILL one in the middle of a run. Every one still alive is killed after the test file.
 */

const repository = join(import.meta.dirname, "..", "..", "..");
const script = join(import.meta.dirname, "redis-test-worker.ts");
const alive = new Set<ChildProcess>();

afterAll(() => {
  for (const child of alive) child.kill("SIGKILL");
  alive.clear();
});

/** A started worker process; resolves once it is connected and taking requests. */
export async function spawnWorkerProcess(
  url: string,
  name: string,
  startsFile: string,
  concurrency: number,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", script, url, name, startsFile, String(concurrency)],
    {
      cwd: repository,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  alive.add(child);
  child.once("exit", () => alive.delete(child));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("ready\n")) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`worker ${name} ended (${String(code ?? signal)}) before it was ready:\n${output}`)),
    );
  });
  return child;
}

/** SIGKILLs `child` and waits until it has ended. */
export async function killWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
