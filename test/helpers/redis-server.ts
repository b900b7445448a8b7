import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { requireTools } from "./required-tools.js";

/**
 * A real redis-server for tests: its own folder, a free port on 127.0.0.1, AOF on with
 * `appendfsync always` (so a SIGKILLed server loses nothing it acknowledged), no RDB
 * snapshots. `restart()` and `kill()` keep the folder, so the data survives them as it would in
 * production. Every server started here is killed after the test file.
 */

/** A running test Redis. */
export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** The server's folder (its AOF and log). */
  readonly folder: string;
  /** Stops the server (SIGTERM) and waits for it to end. */
  stop(): Promise<void>;
  /** SIGKILLs the server and waits for it to end: nothing is flushed beyond what AOF already has. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder (after {@link stop} or {@link kill}, or stops it first). */
  restart(): Promise<void>;
}

const started: ChildProcess[] = [];

afterAll(async () => {
  for (const child of started.splice(0)) await ended(child, "SIGKILL");
});

/** A port nobody listens on right now (the kernel's choice for port 0). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server on a free port in a new folder. */
export async function startRedis(): Promise<TestRedis> {
  requireTools("redis-server");
  const folder = mkdtempSync(join(tmpdir(), "skillgate-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(folder, port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    folder,
    async stop() {
      if (child !== undefined) await ended(child, "SIGTERM");
      child = undefined;
    },
    async kill() {
      if (child !== undefined) await ended(child, "SIGKILL");
      child = undefined;
    },
    async restart() {
      if (child !== undefined) await ended(child, "SIGTERM");
      child = await launch(folder, port);
    },
  };
}

async function launch(folder: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      folder,
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
      "--save",
      "",
      "--maxmemory-policy",
      "noeviction",
      "--protected-mode",
      "no",
      "--logfile",
      "",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  started.push(child);
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      log += chunk.toString("utf8");
      if (log.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8");
    });
    child.once("exit", (code) =>
      reject(new Error(`redis-server ended (${String(code)}) before it was ready:\n${log}`)),
    );
    child.once("error", reject);
  });
  // Keep reading so a full pipe never stops the server.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

async function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
  const index = started.indexOf(child);
  if (index >= 0) started.splice(index, 1);
}
