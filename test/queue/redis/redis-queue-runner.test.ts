import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DEFAULT_QUEUE_CONFIG } from "../../../src/config/queue-config.js";
import { queueLayout } from "../../../src/queue/local/layout.js";
import { RequestSeal } from "../../../src/queue/local/request-seal.js";
import { type QueueRunFinished, QueueRunner } from "../../../src/queue/queue-runner.js";
import { startQueueWorker } from "../../../src/queue/queue-setup.js";
import type { RedisQueueClient } from "../../../src/queue/redis/redis-queue-client.js";
import { DEFAULT_RUN_LIMITS } from "../../../src/runners/contract.js";
import { LocalRunner } from "../../../src/runners/local-runner.js";
import { RunnerRouter } from "../../../src/runners/router.js";
import { SnapshotStore } from "../../../src/runners/snapshot.js";
import { eventually } from "../../helpers/eventually.js";
import { startRedis } from "../../helpers/redis-server.js";
import { queuedSkill, queueTree } from "../helpers.js";
import { testClient } from "./redis-helpers.js";

/**
 * The controller's QueueRunner on the Redis backend: a queue-mode run through the router is one
 * audit call with the worker's name; a controller killed while its job runs loses nothing: the
 * next controller collects the answer from Redis for the audit, with `caller: gone`.
 */

async function redisWorker(url: string, data: string, name: string) {
  const worker = await startQueueWorker({
    dataFolder: data,
    name,
    concurrency: 1,
    config: () => ({ ...DEFAULT_QUEUE_CONFIG, backend: "redis", redis: { url } }),
    runner: new LocalRunner({ dataFolder: data, isTrusted: () => true }),
    redis: { lockDurationMs: 1500, stalledIntervalMs: 500 },
  });
  return worker;
}

function sealedClient(url: string, data: string): RedisQueueClient {
  return testClient(url, { seal: RequestSeal.open(queueLayout(data).sealKey) });
}

describe("QueueRunner on Redis", () => {
  it("runs a queue-mode script through the router and audits the worker's name", async () => {
    const redis = await startRedis();
    const { data, skills } = queueTree();
    const { folder, hash } = queuedSkill(data, skills, "greet", {
      "scripts/greet.mjs": "console.log(process.env.SKILLGATE_SKILL_ARGS);\n",
    });
    const client = sealedClient(redis.url, data);
    const worker = await redisWorker(redis.url, data, "redis-1");
    try {
      const finished: QueueRunFinished[] = [];
      const queue = new QueueRunner({
        client: async () => client,
        dataFolder: data,
        onFinished: (e) => finished.push(e),
      });
      const router = new RunnerRouter({
        snapshots: new SnapshotStore({ dataFolder: data }),
        runners: { queue },
      });
      const result = await router.run({
        skill: "greet",
        hash,
        folder,
        execution: "queue",
        script: "scripts/greet.mjs",
        language: "node",
        arguments: { greeting: "hi" },
        limits: DEFAULT_RUN_LIMITS,
        call: { requestId: "call-1", scope: { kind: "chat", id: "chat-1" } },
      });
      expect(result.status, result.message ?? result.stderr).toBe("ok");
      expect(JSON.parse(result.stdout)).toEqual({ greeting: "hi" });
      expect(finished).toEqual([
        expect.objectContaining({ skill: "greet", status: "ok", worker: "redis-1", caller: "waiting" }),
      ]);
    } finally {
      await worker.stop();
    }
  });

  it("a controller killed while its job runs: the next one audits the answer, caller gone", async () => {
    const redis = await startRedis();
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "later", {
      "scripts/later.mjs": "await new Promise((r) => setTimeout(r, 300)); console.log('late');\n",
    });
    // The seal key exists before the controller process opens it.
    RequestSeal.open(queueLayout(data).sealKey);
    const controller = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "test/queue/redis/redis-controller-process.ts",
        redis.url,
        data,
        "later",
        hash,
        "scripts/later.mjs",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => controller.stdout.on("data", () => resolve()));
    controller.kill("SIGKILL");
    await new Promise<void>((resolve) => controller.once("exit", () => resolve()));
    const worker = await redisWorker(redis.url, data, "finisher");
    try {
      const client = sealedClient(redis.url, data);
      const finished: QueueRunFinished[] = [];
      const restarted = new QueueRunner({
        client: async () => client,
        dataFolder: data,
        onFinished: (event) => finished.push(event),
      });
      expect(restarted.collectGoneCallers()).toBe(1);
      await eventually("the gone caller's answer", () => expect(finished).toHaveLength(1));
      expect(finished[0]).toMatchObject({
        skill: "later",
        status: "ok",
        worker: "finisher",
        caller: "gone",
        call: { requestId: "call-1", scope: { kind: "chat", id: "chat-1" } },
      });
      expect(restarted.collectGoneCallers()).toBe(0);
      restarted.close();
    } finally {
      await worker.stop();
    }
  });
});
