import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRequestFileName, queueLayout } from "../../src/queue/local/layout.js";
import { LocalQueueClient } from "../../src/queue/local/local-queue-client.js";
import { untakenAnswers } from "../../src/queue/local/local-queue-status.js";
import { RequestSeal } from "../../src/queue/local/request-seal.js";
import { claimedNames, names, workerFolders } from "../../src/queue/local/worker-folders.js";
import { RedisQueueClient } from "../../src/queue/redis/redis-queue-client.js";
import { eventually } from "../helpers/eventually.js";
import { type ChaosBackend, COUNTING_SCRIPT, runQueueChaos } from "../helpers/queue-chaos.js";
import { startRedis } from "../helpers/redis-server.js";
import { seededRandom } from "../helpers/seeded-random.js";
import { queuedSkill, queueTree, workerProcessArgs } from "./helpers.js";

/**
 * DESIGN.md invariant 8, proven by counting: 200 requests over 3 worker processes that are
 * SIGKILLed at random moments and restarted. Every backend has a row; the redis row joins with
 * its backend.
 */
const backends: ReadonlyArray<{
  name: string;
  make: (data: string) => ChaosBackend | Promise<ChaosBackend>;
}> = [
  {
    name: "local",
    make: (data) => {
      const layout = queueLayout(data);
      return {
        name: "local",
        client: new LocalQueueClient({ dataFolder: data, capacity: 1000, heartbeatMs: 1000 }),
        workerCommand: (name) => ({ command: process.execPath, args: workerProcessArgs(data, name) }),
        leftovers: async () => [
          ...names(layout.requests).filter((name) => parseRequestFileName(name) !== undefined),
          ...workerFolders(layout).flatMap((worker) => claimedNames(worker)),
          // Answers stay in responses/ as tombstones once taken; one not taken is a second outcome.
          ...untakenAnswers(layout).map((id) => `untaken answer ${id}`),
        ],
      };
    },
  },
  {
    name: "redis",
    make: async (data) => {
      const redis = await startRedis();
      const lockMs = 1500;
      // The controller's client makes the data folder's seal key; the workers read the same file.
      const client = new RedisQueueClient({
        url: redis.url,
        seal: RequestSeal.open(queueLayout(data).sealKey),
        lockDurationMs: lockMs,
        stalledIntervalMs: 500,
        sweepMs: 250,
      });
      return {
        name: "redis",
        client,
        workerCommand: (name) => ({
          command: process.execPath,
          args: workerProcessArgs(data, name, { redis: redis.url, lockMs }),
        }),
        // Answered, yet a job whose worker was killed after answering stays listed active until
        // its lock lapses and the controller's sweep removes it: wait for that, then report.
        leftovers: async () => {
          await eventually(
            "no job left waiting or active",
            async () => {
              const status = await client.status();
              return status.counts.waiting + status.counts.active === 0;
            },
            { timeoutMs: 20_000 },
          ).catch(() => undefined);
          const status = await client.status();
          const left = await client.outstanding();
          if (status.counts.waiting > 0) left.push(`${status.counts.waiting} waiting`);
          if (status.counts.active > 0) left.push(`${status.counts.active} active`);
          return left;
        },
      };
    },
  },
];

describe.each(backends)("at most once ($name)", ({ make }) => {
  it("200 requests over 3 workers killed at random: each ends once, none started twice, nothing left", async () => {
    const random = seededRandom("QUEUE_CHAOS_SEED", "npx vitest run test/queue/at-most-once.test.ts");
    const { data, skills, root } = queueTree();
    const { hash } = queuedSkill(data, skills, "counting", { "scripts/count.mjs": COUNTING_SCRIPT });
    const log = join(root, "starts.log");
    const backend = await make(data);
    const report = await runQueueChaos(
      backend,
      { skill: "counting", hash, script: "scripts/count.mjs", log },
      {
        requests: 200,
        workers: 3,
        random,
        killEveryMs: [150, 700],
        restartAfterMs: [50, 400],
        maxSleepMs: 300,
        failEvery: 10,
      },
    );
    console.info(`seed ${random.seed}: ${report.kills} kills, ${JSON.stringify(report.byStatus)}`);
    expect(report.answers.size).toBe(200);
    const unexpected = [...report.answers.values()]
      .filter((answer) => !["ok", "failed", "interrupted"].includes(answer.status))
      .map((answer) => `${answer.requestId}: ${answer.status} ${answer.code ?? ""} ${answer.message ?? ""}`);
    expect(unexpected, `seed ${random.seed}: answers other than ok, failed, interrupted`).toEqual([]);
    for (const [id, count] of report.starts) {
      expect(count, `seed ${random.seed}: ${id} started ${count} times`).toBe(1);
      expect(report.answers.has(id), `seed ${random.seed}: ${id} started but has no answer`).toBe(true);
    }
    // An answer of a run (ok or failed) means its body started exactly once.
    for (const [id, answer] of report.answers)
      if (answer.status === "ok" || answer.status === "failed")
        expect(report.starts.get(id), `seed ${random.seed}: ${id} answered ${answer.status}`).toBe(1);
    expect(report.kills).toBeGreaterThan(0);
    expect(report.leftovers, `seed ${random.seed}: left over`).toEqual([]);
    await backend.client.close();
  });
});
