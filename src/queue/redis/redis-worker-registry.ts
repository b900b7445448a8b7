import type { Redis } from "ioredis";
import type { QueueWorkerInfo } from "../contract.js";
import type { RedisQueueKeys } from "./redis-queue-keys.js";

/** A worker as it registers itself. */
export interface WorkerIdentity {
  readonly name: string;
  readonly host: string;
  readonly pid: number;
  readonly concurrency: number;
}

/**
 * A worker's registration: a hash with its name, host, pid, concurrency, running count and last
 * heartbeat, expiring after three heartbeats unless renewed. A worker killed without a word drops
 * out of status() once its registration expires.
 */
export class RedisWorkerRegistration {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly client: Redis,
    private readonly keys: RedisQueueKeys,
    private readonly identity: WorkerIdentity,
    private readonly heartbeatMs: number,
    private readonly running: () => number,
  ) {}

  /** Registers and starts the heartbeat. */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beat().catch(() => {});
    }, this.heartbeatMs);
    this.timer.unref();
  }

  /** Marks the worker as stopping (it takes no new requests). */
  async markStopping(): Promise<void> {
    this.stopping = true;
    await this.beat().catch(() => {});
  }

  /** Stops the heartbeat without a word to Redis (it cannot be reached); the registration expires by itself. */
  halt(): void {
    clearInterval(this.timer);
  }

  /** Stops the heartbeat and removes the registration. */
  async remove(): Promise<void> {
    clearInterval(this.timer);
    await this.client
      .multi()
      .del(this.keys.worker(this.identity.name))
      .zrem(this.keys.workers, this.identity.name)
      .exec()
      .catch(() => {});
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    const key = this.keys.worker(this.identity.name);
    await this.client
      .multi()
      .hset(key, {
        name: this.identity.name,
        host: this.identity.host,
        pid: String(this.identity.pid),
        concurrency: String(this.identity.concurrency),
        running: String(this.running()),
        lastSeen: new Date(now).toISOString(),
        stopping: this.stopping ? "1" : "0",
      })
      .pexpire(key, this.heartbeatMs * 3)
      .zadd(this.keys.workers, now, this.identity.name)
      .exec();
  }
}

/** The registered workers whose registration has not expired; expired names are dropped from the list. */
export async function readWorkers(client: Redis, keys: RedisQueueKeys): Promise<QueueWorkerInfo[]> {
  const names = await client.zrange(keys.workers, 0, -1);
  if (names.length === 0) return [];
  const pipeline = client.pipeline();
  for (const name of names) pipeline.hgetall(keys.worker(name));
  const results = (await pipeline.exec()) ?? [];
  const workers: QueueWorkerInfo[] = [];
  const gone: string[] = [];
  names.forEach((name, index) => {
    const fields = results[index]?.[1] as Record<string, string> | undefined;
    if (fields === undefined || fields.name === undefined) {
      gone.push(name);
      return;
    }
    workers.push({
      name: fields.name,
      host: fields.host ?? "",
      ...(fields.pid !== undefined ? { pid: Number(fields.pid) } : {}),
      concurrency: Number(fields.concurrency ?? 0),
      running: Number(fields.running ?? 0),
      lastSeen: fields.lastSeen ?? "",
      stopping: fields.stopping === "1",
    });
  });
  if (gone.length > 0) await client.zrem(keys.workers, ...gone);
  return workers;
}
