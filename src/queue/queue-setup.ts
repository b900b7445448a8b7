import { hostname } from "node:os";
import type { QueueConfig } from "../config/queue-config.js";
import type { Runner } from "../runners/contract.js";
import type { QueueClient, QueueWorkerSource } from "./contract.js";
import { LocalQueueClient } from "./local/local-queue-client.js";
import { LocalWorkerSource } from "./local/local-worker-source.js";
import { SnapshotSkillFiles, type WorkerSkillFiles } from "./worker/skill-files.js";
import { type RunningWorker, startWorker } from "./worker/worker.js";

/**
 * Opening the configured backend, for the controller and for workers. Backends other than
 * `local` are loaded only when configured, so a command that never queues never loads them.
 */

/** The controller's client of the configured backend: opened once on first use, closed once. */
export interface QueueClientHandle {
  open(): Promise<QueueClient>;
  /** Closes the client if it was opened (a Redis connection); a later open makes a new one. */
  close(): Promise<void>;
}

/** The controller's client of the configured backend, opened once on first use. */
export function queueClientOf(dataFolder: string, config: () => QueueConfig): QueueClientHandle {
  let opened: Promise<QueueClient> | undefined;
  return {
    open: () => {
      opened ??= openQueueClient(dataFolder, config).catch((error: unknown) => {
        opened = undefined;
        throw error;
      });
      return opened;
    },
    close: async () => {
      const client = opened;
      opened = undefined;
      await (await client?.catch(() => undefined))?.close();
    },
  };
}

async function openQueueClient(dataFolder: string, config: () => QueueConfig): Promise<QueueClient> {
  const settings = config();
  if (settings.backend === "local")
    return new LocalQueueClient({
      dataFolder,
      capacity: () => config().capacity,
      heartbeatMs: settings.heartbeatSeconds * 1000,
    });
  const { openRedisQueueClient } = await import("./redis/redis-queue-setup.js");
  return openRedisQueueClient(dataFolder, config);
}

/** Options of {@link startQueueWorker}. */
export interface QueueWorkerOptions {
  readonly dataFolder: string;
  readonly config: () => QueueConfig;
  /** Default `<host>-<pid>`. */
  readonly name?: string;
  /** Default the configuration's `queue.concurrency`. */
  readonly concurrency?: number;
  /** What runs the scripts: the sandbox runner. */
  readonly runner: Runner;
  /** Where the skills' files come from; default the data folder's verified snapshots. */
  readonly skillFiles?: WorkerSkillFiles;
  /** Another backend's source; default the configured backend's (the local file queue or Redis). */
  readonly source?: QueueWorkerSource;
  /**
   * Redis: the URL (default `queue.redis.url`), the controller's seal key (default
   * `<data>/queue/seal.key`) and the lock timings (docs/queue.md, "Why not BullMQ's defaults").
   */
  readonly redis?: {
    readonly url?: string;
    readonly sealKeyFile?: string;
    readonly lockDurationMs?: number;
    readonly stalledIntervalMs?: number;
  };
}

/** Starts a worker of the configured backend (the local file queue unless a source is given). */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<RunningWorker> {
  const settings = options.config();
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const redisUrl = options.redis?.url ?? (settings.backend === "redis" ? settings.redis.url : undefined);
  const source =
    options.source ??
    (redisUrl !== undefined
      ? await redisSource(options, redisUrl, name, settings.heartbeatSeconds * 1000)
      : undefined) ??
    new LocalWorkerSource({
      dataFolder: options.dataFolder,
      name,
      heartbeatMs: settings.heartbeatSeconds * 1000,
      skillLimits: () => options.config().skills,
    });
  return startWorker({
    source,
    skillFiles: options.skillFiles ?? new SnapshotSkillFiles(options.dataFolder),
    runner: options.runner,
    name,
    concurrency: options.concurrency ?? settings.concurrency,
  });
}

async function redisSource(
  options: QueueWorkerOptions,
  url: string,
  name: string,
  heartbeatMs: number,
): Promise<QueueWorkerSource> {
  const { openRedisWorkerSource } = await import("./redis/redis-queue-setup.js");
  const { queueLayout } = await import("./local/layout.js");
  return openRedisWorkerSource({
    url,
    name,
    heartbeatMs,
    sealKeyFile: options.redis?.sealKeyFile ?? queueLayout(options.dataFolder).sealKey,
    sealKeyGiven: options.redis?.sealKeyFile !== undefined,
    ...(options.redis?.lockDurationMs !== undefined ? { lockDurationMs: options.redis.lockDurationMs } : {}),
    ...(options.redis?.stalledIntervalMs !== undefined
      ? { stalledIntervalMs: options.redis.stalledIntervalMs }
      : {}),
  });
}

/**
 * Whether `skillgate serve` starts a worker in its own process: `on` always, `off` never,
 * `auto` when the queue shows no live worker (no fresh heartbeat) right now.
 */
export async function wantsInProcessWorker(config: QueueConfig, client: QueueClient): Promise<boolean> {
  if (config.workers.inProcess === "on") return true;
  if (config.workers.inProcess === "off") return false;
  try {
    const status = await client.status();
    return status.workers.length === 0;
  } catch {
    return false;
  }
}
