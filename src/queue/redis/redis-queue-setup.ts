import { existsSync } from "node:fs";
import type { QueueConfig } from "../../config/queue-config.js";
import { queueLayout } from "../local/layout.js";
import { RequestSeal } from "../local/request-seal.js";
import { QueueUnavailableError } from "../queue-errors.js";
import { RedisQueueClient } from "./redis-queue-client.js";
import { RedisQueueWorkerSource } from "./redis-worker-source.js";

/**
 * Opening the Redis backend from the `queue:` configuration, for queue-setup.ts (which imports
 * this file only when `queue.backend` is `redis`, so nothing else loads BullMQ or ioredis).
 */

/** The controller's client: sealed with the data folder's key (made on first use). */
export function openRedisQueueClient(dataFolder: string, config: () => QueueConfig): RedisQueueClient {
  const settings = config();
  const url = settings.redis.url;
  if (url === undefined) throw new QueueUnavailableError("redis", "queue.redis.url is not set");
  const skillConcurrency: Record<string, number> = {};
  for (const [skill, limit] of Object.entries(settings.skills)) skillConcurrency[skill] = limit.concurrency;
  return new RedisQueueClient({
    url,
    seal: RequestSeal.open(queueLayout(dataFolder).sealKey),
    capacity: settings.capacity,
    skillConcurrency,
  });
}

/** What {@link openRedisWorkerSource} is given. */
export interface RedisWorkerSourceSetup {
  readonly url: string;
  readonly name: string;
  readonly heartbeatMs: number;
  /** The controller's seal key: its `<data>/queue/seal.key`, or a copy of it on another host. */
  readonly sealKeyFile: string;
  /**
   * True for a copy named by the owner (`--seal-key`): it must exist, since a worker that made
   * a key of its own would refuse every request. The data folder's own key is made on first use.
   */
  readonly sealKeyGiven: boolean;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  readonly onError?: (error: Error) => void;
}

/** A worker's source on Redis. */
export function openRedisWorkerSource(setup: RedisWorkerSourceSetup): RedisQueueWorkerSource {
  if (setup.sealKeyGiven && !existsSync(setup.sealKeyFile))
    throw new QueueUnavailableError(
      "redis",
      `the controller's seal key ${setup.sealKeyFile} is missing; copy the controller's queue/seal.key here or pass --seal-key`,
    );
  return new RedisQueueWorkerSource({
    url: setup.url,
    name: setup.name,
    heartbeatMs: setup.heartbeatMs,
    seal: RequestSeal.open(setup.sealKeyFile),
    ...(setup.lockDurationMs !== undefined ? { lockDurationMs: setup.lockDurationMs } : {}),
    ...(setup.stalledIntervalMs !== undefined ? { stalledIntervalMs: setup.stalledIntervalMs } : {}),
    ...(setup.onError !== undefined ? { onError: setup.onError } : {}),
  });
}
