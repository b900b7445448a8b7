import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "../../helpers/eventually.js";
import { startRedis } from "../../helpers/redis-server.js";
import { makeTree } from "../../helpers/skill-tree.js";
import { recordingHandler, testWorkerSource } from "./recording-worker.js";
import { stopAfterTest, testClient, testRequest } from "./redis-helpers.js";

/**
 * Redis itself restarted (SIGKILL, AOF with appendfsync always) mid-load: no accepted request
 * is lost, the ones running end interrupted, the rest run, none starts twice. (The chaos test of
 * SIGKILLed workers is the redis row of test/queue/at-most-once.test.ts, on the shared harness.)
 */

const ENDINGS = ["ok", "failed", "interrupted"];

function startsIn(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const value of values) {
    if (seen.has(value)) twice.push(value);
    seen.add(value);
  }
  return twice;
}

describe("the Redis backend across a Redis restart", () => {
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
