import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { queueLayout } from "../../../src/queue/local/layout.js";
import { RequestSeal } from "../../../src/queue/local/request-seal.js";
import { eventually } from "../../helpers/eventually.js";
import { freePort, startRedis } from "../../helpers/redis-server.js";
import { requireBubblewrap } from "../../runners/sandbox/harness.js";
import { runCaptured } from "../../surfaces/cli/harness.js";
import { queuedSkill, queueRequest, queueTree } from "../helpers.js";
import { testClient } from "./redis-helpers.js";

/**
 * `skillgate worker --redis URL` and `skillgate queue status` with `queue.backend: redis`, as
 * processes from the sources against a real Redis: the worker registers, runs a request in the
 * sandbox, shows in the status with its host, and stops gracefully; a worker without the
 * controller's seal key refuses to start.
 */

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function startCliWorker(
  config: string,
  data: string,
  extra: string[],
): { child: ChildProcess; out: () => string } {
  let out = "";
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/surfaces/cli/main.ts", "--config", config, "--data", data, "worker", ...extra],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return { child, out: () => out };
}

describe("skillgate worker --redis and skillgate queue status on Redis", () => {
  it("runs a request in the sandbox, shows in the status, and stops gracefully on SIGTERM", async () => {
    requireBubblewrap();
    const redis = await startRedis();
    const { root, data, skills } = queueTree();
    const config = join(root, "config");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "config.yaml"), `queue:\n  backend: redis\n  redis:\n    url: ${redis.url}\n`);
    const { hash } = queuedSkill(data, skills, "hello", { "scripts/hello.mjs": "console.log('hello');\n" });
    const client = testClient(redis.url, { seal: RequestSeal.open(queueLayout(data).sealKey) });
    const worker = startCliWorker(config, data, [
      "--redis",
      redis.url,
      "--name",
      "cli-redis",
      "--concurrency",
      "1",
    ]);
    await eventually("the worker to start", () => worker.out().includes("takes requests"), {
      timeoutMs: 30_000,
    });
    const status = await runCaptured(["--config", config, "--data", data, "queue", "status", "--json"]);
    expect(status.code, status.err).toBe(0);
    const parsed = JSON.parse(status.out) as {
      backend: string;
      workers: Array<{ name: string; host: string }>;
    };
    expect(parsed.backend).toBe("redis");
    expect(parsed.workers).toEqual([expect.objectContaining({ name: "cli-redis", concurrency: 1 })]);
    const request = queueRequest("hello", hash, "scripts/hello.mjs");
    await client.submit(request);
    const answer = await client.waitFor(request.requestId);
    expect(answer.status, `${answer.message ?? answer.stderr}\n${worker.out()}`).toBe("ok");
    expect(answer.stdout).toBe("hello\n");
    expect(answer.worker?.name).toBe("cli-redis");
    const exited = new Promise<number | null>((resolve) =>
      worker.child.once("exit", (code) => resolve(code)),
    );
    worker.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect((await client.status()).workers).toEqual([]);
  });

  it("SIGTERM with Redis gone for good: the worker leaves after its bounded wait, saying so, exit 1", async () => {
    requireBubblewrap();
    const redis = await startRedis();
    const { root, data, skills } = queueTree();
    const config = join(root, "config");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "config.yaml"), `queue:\n  backend: redis\n  redis:\n    url: ${redis.url}\n`);
    const { hash } = queuedSkill(data, skills, "sleepy", {
      "scripts/sleep.mjs": "await new Promise((r) => setTimeout(r, 60_000));\n",
    });
    const client = testClient(redis.url, { seal: RequestSeal.open(queueLayout(data).sealKey) });
    const worker = startCliWorker(config, data, [
      "--redis",
      redis.url,
      "--name",
      "cli-gone",
      "--concurrency",
      "1",
    ]);
    await eventually("the worker to start", () => worker.out().includes("takes requests"), {
      timeoutMs: 30_000,
    });
    await client.submit(queueRequest("sleepy", hash, "scripts/sleep.mjs"));
    // Running in the worker (not only active in BullMQ): its heartbeat counts it.
    await eventually("the run to start", async () => (await client.status()).workers[0]?.running === 1, {
      timeoutMs: 30_000,
    });
    const exited = new Promise<number | null>((resolve) =>
      worker.child.once("exit", (code) => resolve(code)),
    );
    await redis.kill();
    worker.child.kill("SIGTERM");
    // Without the bound this never ends (the test's timeout fails it).
    expect(await exited).toBe(1);
    expect(worker.out()).toContain("skillgate: worker stopped without its queue: ");
    expect(worker.out()).toContain(
      `redis://127.0.0.1:${redis.port} was unreachable for 10 s while the worker stopped`,
    );
    expect(worker.out()).toContain("1 request it held stay claimed and will be answered interrupted");
    await client.close();
  });

  it("does not start when Redis cannot be reached: says so after a bounded wait, naming Redis without its password", async () => {
    const port = await freePort();
    const { root, data } = queueTree();
    const run = await runCaptured([
      "--config",
      join(root, "config"),
      "--data",
      data,
      "worker",
      "--redis",
      `redis://skillgate:secret-password@127.0.0.1:${port}`,
    ]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`redis://127.0.0.1:${port} cannot be reached`);
    expect(run.err).toContain("so the worker did not start");
    expect(run.err).not.toContain("secret-password");
  });

  it("refuses to start without the controller's seal key, naming the file", async () => {
    const redis = await startRedis();
    const { root, data } = queueTree();
    const missing = join(root, "nowhere", "seal.key");
    const run = await runCaptured([
      "--config",
      join(root, "config"),
      "--data",
      data,
      "worker",
      "--redis",
      redis.url,
      "--seal-key",
      missing,
    ]);
    expect(run.code).not.toBe(0);
    expect(run.err).toContain(missing);
  });
});
