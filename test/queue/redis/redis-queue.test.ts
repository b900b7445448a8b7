import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { isSkillgateError } from "../../../src/core/errors.js";
import type { ClaimedRequest } from "../../../src/queue/contract.js";
import { eventually } from "../../helpers/eventually.js";
import { freePort, startRedis } from "../../helpers/redis-server.js";
import { makeTree } from "../../helpers/skill-tree.js";
import { recordingHandler, testWorkerSource } from "./recording-worker.js";
import { stopAfterTest, testClient, testRequest } from "./redis-helpers.js";

/**
 * The Redis backend against a real redis-server, with the tiny recording handler in place of
 * the sandbox: round trip, one answer per id, the bound, an unreachable Redis, a job changed in
 * Redis, cancellation, status and the pool-wide skill limit.
 */

function startsFile(): string {
  const file = join(makeTree("skillgate-redis-starts-"), "starts.txt");
  writeFileSync(file, "");
  return file;
}

function starts(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

/** A job's data as the tests edit it in Redis. */
interface JobData {
  readonly request: Record<string, unknown>;
  readonly seal?: string;
}

describe("the Redis queue backend", () => {
  it("runs a request on a worker and answers it once, with the worker's name; status counts it", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const client = testClient(redis.url);
    const worker = stopAfterTest(testWorkerSource(redis.url, { name: "w1" }));
    await worker.start(recordingHandler(file), 2);
    const request = testRequest();
    await client.submit(request);
    const answer = await client.waitFor(request.requestId);
    expect(answer).toMatchObject({
      requestId: request.requestId,
      status: "ok",
      stdout: "ran scripts/noop.sh",
    });
    expect(answer.worker?.name).toBe("w1");
    expect(starts(file)).toEqual([request.requestId]);
    const status = await client.status();
    expect(status.backend).toBe("redis");
    expect(status.counts).toEqual({ waiting: 0, active: 0, done: 1, interrupted: 0, failed: 0 });
    expect(status.workers.map((each) => [each.name, each.concurrency, each.stopping])).toEqual([
      ["w1", 2, false],
    ]);
    expect(status.workers[0]?.pid).toBe(process.pid);
  });

  it("never accepts the same request id twice", async () => {
    const redis = await startRedis();
    const client = testClient(redis.url);
    const request = testRequest();
    await client.submit(request);
    const second = await client.submit(request).catch((error: unknown) => error);
    expect(isSkillgateError(second, "duplicate_request")).toBe(true);
    expect((await client.status()).counts.waiting).toBe(1);
  });

  it.each([
    ["an empty id", ""],
    ["a bare number", "12345"],
    ["a colon", "a:b"],
    ["a slash", "a/b"],
    ["a space", "a b"],
    ["too long", "a".repeat(129)],
  ])("refuses a request id with %s (invalid_argument) and queues nothing", async (_case, requestId) => {
    const redis = await startRedis();
    const client = testClient(redis.url);
    const error = await client.submit(testRequest({ requestId })).catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "invalid_argument")).toBe(true);
    expect((await client.status()).counts.waiting).toBe(0);
    expect(await client.outstanding()).toEqual([]);
  });

  it("refuses a request over 256 KiB of JSON with limit_exceeded and queues nothing", async () => {
    const redis = await startRedis();
    const client = testClient(redis.url);
    const big = testRequest({ arguments: { text: "x".repeat(300 * 1024) } });
    const error = await client.submit(big).catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "limit_exceeded")).toBe(true);
    expect((error as Error).message).toMatch(/^HOST: the request is over 256 KiB/);
    expect((await client.status()).counts.waiting).toBe(0);
    expect(await client.outstanding()).toEqual([]);
    // Refused before it was accepted: the same id, smaller, is not a duplicate.
    await client.submit({ ...big, arguments: { text: "small" } });
    expect((await client.status()).counts.waiting).toBe(1);
  });

  it("refuses a submit past the bound with queue_full and a HOST: text; nothing is queued", async () => {
    const redis = await startRedis();
    const client = testClient(redis.url, { capacity: 2 });
    await client.submit(testRequest());
    await client.submit(testRequest());
    const refused = testRequest();
    const error = await client.submit(refused).catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "queue_full")).toBe(true);
    expect((error as Error).message).toMatch(/^HOST: the worker pool's queue is full \(2 waiting\)/);
    expect((await client.status()).counts.waiting).toBe(2);
    expect(await client.outstanding()).not.toContain(refused.requestId);
  });

  it("refuses at once with queue_unavailable when Redis is not there, and never hangs", async () => {
    const port = await freePort();
    const client = testClient(`redis://user:secret-password@127.0.0.1:${port}`, { commandTimeoutMs: 500 });
    for (const call of [() => client.submit(testRequest()), () => client.status()]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(isSkillgateError(error, "queue_unavailable")).toBe(true);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^HOST: the worker pool's queue \\(redis at redis://127\\.0\\.0\\.1:${port}\\) cannot be reached`,
        ),
      );
      expect((error as Error).message).not.toContain("secret-password");
    }
  });

  it("goes on once Redis is back after being unreachable", async () => {
    const redis = await startRedis();
    const client = testClient(redis.url, { commandTimeoutMs: 500 });
    await redis.stop();
    const error = await client.submit(testRequest()).catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "queue_unavailable")).toBe(true);
    await redis.restart();
    await eventually("a submit after Redis came back", async () => {
      await client.submit(testRequest());
    });
  });

  it.each([
    [
      "names another script",
      (data: JobData) => ({ ...data, request: { ...data.request, script: "scripts/evil.sh" } }),
    ],
    ["names another skill", (data: JobData) => ({ ...data, request: { ...data.request, skill: "other" } })],
    [
      "changes the arguments",
      (data: JobData) => ({ ...data, request: { ...data.request, arguments: { sleepMs: 1 } } }),
    ],
    [
      "changes the hash",
      (data: JobData) => ({ ...data, request: { ...data.request, hash: "b".repeat(64) } }),
    ],
    ["drops the mark", (data: JobData) => ({ request: data.request })],
    ["forges a mark", (data: JobData) => ({ ...data, seal: "0".repeat(64) })],
    ["is not an object", () => "just text"],
  ])(
    "refuses a job edited in Redis that %s (request_tampered); the handler never runs",
    async (_case, edit) => {
      const redis = await startRedis();
      const file = startsFile();
      const client = testClient(redis.url);
      const request = testRequest();
      await client.submit(request);
      const raw = new Redis(redis.url);
      try {
        const key = `{skillgate}:runs:${request.requestId}`;
        const data = JSON.parse((await raw.hget(key, "data")) ?? "null") as JobData;
        await raw.hset(key, "data", JSON.stringify(edit(data)));
      } finally {
        raw.disconnect();
      }
      const worker = stopAfterTest(testWorkerSource(redis.url));
      await worker.start(recordingHandler(file), 1);
      const answer = await client.waitFor(request.requestId);
      expect(answer).toMatchObject({ status: "refused", code: "request_tampered" });
      expect(answer.message).toMatch(/^HOST: /);
      expect(starts(file)).toEqual([]);
    },
  );

  it("cancels a waiting request before any worker starts it: answered cancelled, never run", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const client = testClient(redis.url);
    const request = testRequest();
    await client.submit(request);
    const abort = new AbortController();
    const answer = client.waitFor(request.requestId, abort.signal);
    abort.abort();
    expect(await answer).toMatchObject({ status: "cancelled", code: "cancelled_before_start" });
    const worker = stopAfterTest(testWorkerSource(redis.url));
    await worker.start(recordingHandler(file), 1);
    const after = testRequest();
    await client.submit(after);
    await client.waitFor(after.requestId);
    expect(starts(file)).toEqual([after.requestId]);
  });

  it("cancels a running request: the worker's signal aborts and the handler's answer comes back", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const client = testClient(redis.url);
    let started: (claimed: ClaimedRequest) => void = () => {};
    const running = new Promise<ClaimedRequest>((resolve) => {
      started = resolve;
    });
    const worker = stopAfterTest(testWorkerSource(redis.url));
    await worker.start(recordingHandler(file, started), 1);
    const request = testRequest({}, 60_000);
    await client.submit(request);
    const abort = new AbortController();
    const answer = client.waitFor(request.requestId, abort.signal);
    const claimed = await running;
    abort.abort();
    expect(await answer).toMatchObject({ status: "cancelled" });
    expect(claimed.signal.aborted).toBe(true);
  });

  it("an answer outlives the controller: a new client lists it as uncollected, and taking it clears that", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const first = testClient(redis.url);
    const request = testRequest({}, 100);
    const other = testRequest();
    await first.submit(request);
    await first.submit(other);
    await first.close();
    const worker = stopAfterTest(testWorkerSource(redis.url));
    await worker.start(recordingHandler(file), 1);
    const second = testClient(redis.url);
    await eventually("both answered", async () => (await second.outstanding()).length === 0);
    const listed = await second.uncollectedAnswers();
    expect(listed.map((answer) => answer.requestId).sort()).toEqual(
      [request.requestId, other.requestId].sort(),
    );
    expect(listed.every((answer) => answer.status === "ok")).toBe(true);
    expect((await second.waitFor(request.requestId)).status).toBe("ok");
    await second.markCollected([other.requestId]);
    expect(await second.uncollectedAnswers()).toEqual([]);
  });

  it("stopWaiting ends only the wait: the request still runs and its answer can be taken later", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const client = testClient(redis.url);
    const request = testRequest();
    await client.submit(request);
    const stop = new AbortController();
    const wait = client.waitFor(request.requestId, undefined, { stopWaiting: stop.signal });
    stop.abort();
    await expect(wait).rejects.toMatchObject({ name: "AbortError" });
    await stopAfterTest(testWorkerSource(redis.url)).start(recordingHandler(file), 1);
    expect((await client.waitFor(request.requestId)).status).toBe("ok");
  });

  it("waiting for an id never submitted is not_found", async () => {
    const redis = await startRedis();
    const client = testClient(redis.url);
    const error = await client.waitFor("r-never").catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "not_found")).toBe(true);
  });

  it("keeps a skill's pool-wide limit over two workers", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const client = testClient(redis.url, { skillConcurrency: { slow: 1 } });
    let now = 0;
    let most = 0;
    const track = (claimed: ClaimedRequest): void => {
      if (claimed.request.skill !== "slow") return;
      now += 1;
      most = Math.max(most, now);
      claimed.signal.addEventListener("abort", () => {});
    };
    const handler = recordingHandler(file, track);
    const counted = async (claimed: ClaimedRequest): Promise<void> => {
      try {
        await handler(claimed);
      } finally {
        if (claimed.request.skill === "slow") now -= 1;
      }
    };
    for (const name of ["a", "b"])
      await stopAfterTest(testWorkerSource(redis.url, { name })).start(counted, 3);
    const slow = [1, 2, 3, 4].map(() => testRequest({ skill: "slow" }, 150));
    const fast = [1, 2].map(() => testRequest({ skill: "fast" }, 150));
    for (const request of [...slow, ...fast]) await client.submit(request);
    const answers = await Promise.all([...slow, ...fast].map((request) => client.waitFor(request.requestId)));
    expect(answers.map((answer) => answer.status)).toEqual(["ok", "ok", "ok", "ok", "ok", "ok"]);
    expect(most).toBe(1);
    expect(starts(file).sort()).toEqual([...slow, ...fast].map((request) => request.requestId).sort());
  });

  it("stops gracefully: the running request is answered, no new one is taken, the worker leaves status", async () => {
    const redis = await startRedis();
    const file = startsFile();
    const client = testClient(redis.url);
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const worker = testWorkerSource(redis.url, { name: "leaving" });
    await worker.start(
      recordingHandler(file, () => started()),
      1,
    );
    const first = testRequest({}, 400);
    const second = testRequest();
    await client.submit(first);
    await running;
    await client.submit(second);
    const stopping = worker.stop();
    expect((await client.waitFor(first.requestId)).status).toBe("ok");
    await stopping;
    expect(starts(file)).toEqual([first.requestId]);
    const status = await client.status();
    expect(status.counts.waiting).toBe(1);
    expect(status.workers).toEqual([]);
  });
});
