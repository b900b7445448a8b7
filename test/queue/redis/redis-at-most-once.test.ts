import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { QueueResponse } from "../../../src/queue/contract.js";
import { eventually } from "../../helpers/eventually.js";
import { startRedis } from "../../helpers/redis-server.js";
import { seededRandom } from "../../helpers/seeded-random.js";
import { makeTree } from "../../helpers/skill-tree.js";
import { stopAfterTest, testClient, testRequest } from "./redis-helpers.js";
import { recordingHandler, testWorkerSource } from "./redis-test-worker.js";
import { killWorkerProcess, spawnWorkerProcess } from "./worker-processes.js";

/**
 * At most once on Redis, proven by counting (the redis row of the at-most-once chaos test):
 * 200 requests over 3 worker processes SIGKILLed at random (seeded, replayable) moments. Every
 * request ends exactly once as ok, failed or interrupted; no request started twice (each start
 * is a line in a file written outside any sandbox); nothing is left waiting or active. Then
 * Redis itself restarted (SIGKILL, AOF with appendfsync always) mid-load: no accepted request
 * is lost, the ones running end interrupted, the rest run.
 */

const REPLAY = "npx vitest run test/queue/redis/redis-at-most-once.test.ts";
const ENDINGS = ["ok", "failed", "interrupted"];

function startsIn(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => (seen.has(value) ? true : (seen.add(value), false)));
}

describe("the Redis backend runs a request at most once", () => {
  it("200 requests, 3 worker processes SIGKILLed at random: one ending each, no second start, nothing left", async () => {
    const random = seededRandom("SKILLGATE_QUEUE_CHAOS_SEED", REPLAY);
    const redis = await startRedis();
    const file = join(makeTree("skillgate-redis-chaos-"), "starts.txt");
    writeFileSync(file, "");
    const client = testClient(redis.url);
    let serial = 0;
    const workers: ChildProcess[] = [];
    for (let index = 0; index < 3; index += 1)
      workers.push(await spawnWorkerProcess(redis.url, `w${(serial += 1)}`, file, 3));
    const requests = Array.from({ length: 200 }, () => testRequest({}, 20 + random.below(180)));
    for (const request of requests) await client.submit(request);
    const answers = Promise.all(requests.map((request) => client.waitFor(request.requestId)));
    let kills = 0;
    let settled = false;
    answers.finally(() => {
      settled = true;
    });
    while (!settled && kills < 8) {
      await sleep(150 + random.below(600));
      if (settled) break;
      const victim = random.below(workers.length);
      await killWorkerProcess(workers[victim] as ChildProcess);
      kills += 1;
      workers[victim] = await spawnWorkerProcess(redis.url, `w${(serial += 1)}`, file, 3);
    }
    const ended: QueueResponse[] = await answers;
    const starts = startsIn(file);
    expect(duplicates(starts)).toEqual([]);
    expect(ended.map((answer) => answer.requestId)).toEqual(requests.map((request) => request.requestId));
    for (const answer of ended) expect(ENDINGS).toContain(answer.status);
    // An ok answer came from a run that started once; an interrupted one started at most once.
    const started = new Set(starts);
    for (const answer of ended.filter((each) => each.status === "ok"))
      expect(started.has(answer.requestId)).toBe(true);
    expect(kills).toBeGreaterThan(0);
    await eventually("nothing left waiting or active", async () => {
      const status = await client.status();
      expect(status.counts.waiting + status.counts.active).toBe(0);
      expect(status.counts.done + status.counts.interrupted + status.counts.failed).toBe(200);
      return true;
    });
    expect(await client.outstanding()).toEqual([]);
    console.info(
      `chaos: ${kills} kills, ${ended.filter((each) => each.status === "ok").length} ok, ${ended.filter((each) => each.status === "interrupted").length} interrupted`,
    );
    for (const worker of workers) await killWorkerProcess(worker);
  }, 240_000);

  it("Redis SIGKILLed and restarted mid-load: every accepted request is answered once, the running ones interrupted", async () => {
    const redis = await startRedis();
    const file = join(makeTree("skillgate-redis-restart-"), "starts.txt");
    writeFileSync(file, "");
    const client = testClient(redis.url);
    for (const name of ["a", "b"])
      await stopAfterTest(testWorkerSource(redis.url, { name })).start(recordingHandler(file), 2);
    const requests = Array.from({ length: 30 }, () => testRequest({}, 400));
    for (const request of requests) await client.submit(request);
    await eventually("some requests running", () => startsIn(file).length >= 4);
    const runningAtKill = new Set(startsIn(file));
    await redis.kill();
    await redis.restart();
    const ended = await Promise.all(requests.map((request) => client.waitFor(request.requestId)));
    const starts = startsIn(file);
    expect(duplicates(starts)).toEqual([]);
    for (const answer of ended) expect(ENDINGS).toContain(answer.status);
    // Each one accepted before the restart ran or was interrupted; none was lost.
    expect(ended.length).toBe(requests.length);
    const interrupted = ended.filter((answer) => answer.status === "interrupted");
    expect(interrupted.length).toBeGreaterThan(0);
    for (const answer of interrupted) {
      expect(answer.code).toBe("queue_connection_lost");
      expect(runningAtKill.has(answer.requestId)).toBe(true);
    }
    const notStarted = requests.filter((request) => !runningAtKill.has(request.requestId));
    for (const request of notStarted)
      expect(ended.find((answer) => answer.requestId === request.requestId)?.status).toBe("ok");
    await eventually("nothing left waiting or active", async () => {
      const status = await client.status();
      expect(status.counts.waiting + status.counts.active).toBe(0);
      return true;
    });
  }, 120_000);
});
