import { randomUUID } from "node:crypto";
import { afterEach } from "vitest";
import type { QueueRequest } from "../../../src/queue/contract.js";
import { RequestSeal } from "../../../src/queue/local/request-seal.js";
import {
  RedisQueueClient,
  type RedisQueueClientOptions,
} from "../../../src/queue/redis/redis-queue-client.js";
import type { RedisQueueWorkerSource } from "../../../src/queue/redis/redis-worker-source.js";
import { FAST_SETTINGS, testKeyFile } from "./recording-worker.js";

/** Shared pieces of the Redis backend's tests: requests, clients and workers closed after each test. */

const clients: RedisQueueClient[] = [];
const workers: RedisQueueWorkerSource[] = [];

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop().catch(() => {});
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

/** A request for `skill`/`script`, sleeping `sleepMs` in the test handler. */
export function testRequest(overrides: Partial<QueueRequest> = {}, sleepMs = 0): QueueRequest {
  return {
    requestId: `r-${randomUUID()}`,
    skill: "demo",
    hash: "a".repeat(64),
    script: "scripts/noop.sh",
    arguments: { sleepMs },
    timeoutMs: 30_000,
    maxOutputBytes: 65_536,
    network: "none",
    allowedDomains: [],
    submittedAt: new Date().toISOString(),
    ...overrides,
  };
}

/** A controller's client for `url`, closed after the test. */
export function testClient(url: string, extra: Partial<RedisQueueClientOptions> = {}): RedisQueueClient {
  const client = new RedisQueueClient({
    url,
    seal: RequestSeal.open(testKeyFile()),
    lockDurationMs: FAST_SETTINGS.lockDurationMs,
    stalledIntervalMs: FAST_SETTINGS.stalledIntervalMs,
    sweepMs: 200,
    ...extra,
  });
  clients.push(client);
  return client;
}

/** Stops `worker` after the test (unless the test stopped it). */
export function stopAfterTest<Source extends RedisQueueWorkerSource>(worker: Source): Source {
  workers.push(worker);
  return worker;
}
