import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { InvalidArgumentError, NotFoundError } from "../../core/errors.js";
import type { QueueClient, QueueRequest, QueueResponse, QueueStatus, QueueWaitOptions } from "../contract.js";
import { DuplicateRequestError, QueueFullError, QueueRequestTooLargeError } from "../queue-errors.js";
import { answerWithoutRun, MAX_REQUEST_BYTES } from "../request-shape.js";
import { RedisAnswerWatch } from "./redis-answer-watch.js";
import { HOST_ANSWERS, parseAnswer, writeAnswerOnce } from "./redis-answers.js";
import { controllerConnection, reachRedis, workerConnection } from "./redis-connection.js";
import { type RedisJobData, type RequestSealer, WORK_JOB_NAME } from "./redis-job-data.js";
import { RedisQueueKeys } from "./redis-queue-keys.js";
import {
  AT_MOST_ONCE_JOB_OPTIONS,
  type RedisQueueSettings,
  type ResolvedRedisQueueSettings,
  resolveRedisQueueSettings,
} from "./redis-queue-settings.js";
import { readWorkers } from "./redis-worker-registry.js";

/** What the controller's side of the Redis backend is given. */
export interface RedisQueueClientOptions extends RedisQueueSettings {
  /** Marks each request so a worker refuses one changed in Redis. */
  readonly seal: RequestSealer;
  /** The most requests waiting at once; a submit beyond it is refused (`queue_full`). Default 1,000. */
  readonly capacity?: number;
  /** Pool-wide limits on requests of one skill running at once, over every worker. */
  readonly skillConcurrency?: Readonly<Record<string, number>>;
  /** How often waiting calls look for answers a missed message did not bring, and lost requests are settled. Default 1 s. */
  readonly sweepMs?: number;
}

/** A request id: names a job and keys; letters, digits, `_ . -`, not a bare number (BullMQ's rule). */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

const ACCEPT_ONCE = `
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
  redis.call("ZADD", KEYS[2], ARGV[1], ARGV[3])
  return 1
end
return 0
`;

/**
 * The controller's side on BullMQ: submit (bounded, deduplicated, failing fast when Redis is
 * away), waiting for an answer (one subscriber connection for every waiting call, plus a sweep
 * that reads the answer keys, so a missed message or a controller restart loses nothing),
 * cancellation, status, and settling requests whose worker died: a request whose job failed or
 * vanished without an answer is answered `interrupted`.
 */
export class RedisQueueClient implements QueueClient {
  readonly settings: ResolvedRedisQueueSettings;
  private readonly keys: RedisQueueKeys;
  private readonly client: Redis;
  private readonly capacity: number;
  private bullQueue: Queue | undefined;
  private readonly watch: RedisAnswerWatch;
  private readonly lockless = new Set<string>();

  constructor(private readonly options: RedisQueueClientOptions) {
    this.settings = resolveRedisQueueSettings(options);
    this.keys = new RedisQueueKeys(this.settings);
    this.capacity = options.capacity ?? 1000;
    this.client = controllerConnection(this.settings);
    this.watch = new RedisAnswerWatch({
      keys: this.keys,
      commands: this.client,
      subscriber: workerConnection(this.settings),
      sweepMs: options.sweepMs ?? 1000,
      onSweep: () => this.settleLost(),
    });
  }

  /**
   * Accepts `request` or throws `queue_full`, `queue_unavailable`, `duplicate_request`,
   * `limit_exceeded` (over 256 KiB of JSON) or `invalid_argument`.
   */
  async submit(request: QueueRequest): Promise<void> {
    const id = request.requestId;
    if (!REQUEST_ID.test(id) || /^\d+$/.test(id))
      throw new InvalidArgumentError(
        "requestId",
        `HOST: request id ${JSON.stringify(id)} is not a valid queue id`,
      );
    const limit = this.options.skillConcurrency?.[request.skill];
    const data: RedisJobData = {
      request,
      seal: this.options.seal.seal(request),
      ...(limit !== undefined ? { skillConcurrency: limit } : {}),
    };
    if (Buffer.byteLength(JSON.stringify(data), "utf8") > MAX_REQUEST_BYTES)
      throw new QueueRequestTooLargeError(MAX_REQUEST_BYTES);
    await reachRedis(this.client, this.settings, async () => {
      const queue = await this.queue();
      const counts = await queue.getJobCounts("waiting", "prioritized", "delayed");
      const waiting = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (waiting >= this.capacity) throw new QueueFullError(waiting, this.capacity);
      const accepted = await this.client.eval(
        ACCEPT_ONCE,
        2,
        this.keys.accepted(id),
        this.keys.outstanding,
        String(Date.now()),
        String(this.settings.answerTtlMs),
        id,
      );
      if (accepted !== 1) throw new DuplicateRequestError(id);
      try {
        await queue.add(WORK_JOB_NAME, data, { jobId: id, ...AT_MOST_ONCE_JOB_OPTIONS });
      } catch (error) {
        // Not queued: take it out of the outstanding set so nothing settles it later.
        await this.client.zrem(this.keys.outstanding, id).catch(() => {});
        throw error;
      }
    });
  }

  /**
   * The request's one answer. Works for a request submitted by an earlier controller process too.
   * `signal` cancels the request; the call still resolves with the answer that follows
   * (`cancelled`, or `ok` when the run finished first). `options.stopWaiting` only stops this
   * wait (an `AbortError`), leaving the request alone. The answer taken is no longer listed by
   * {@link uncollectedAnswers}.
   */
  async waitFor(
    requestId: string,
    signal?: AbortSignal,
    options: QueueWaitOptions = {},
  ): Promise<QueueResponse> {
    const known = await reachRedis(this.client, this.settings, () =>
      this.client.exists(this.keys.accepted(requestId), this.keys.answer(requestId)),
    );
    if (known === 0) throw new NotFoundError("queued request", requestId);
    const onAbort = (): void => {
      this.cancel(requestId).catch(() => {});
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = await this.watch.answerOf(requestId, options.stopWaiting);
      await this.client.zrem(this.keys.uncollected, requestId).catch(() => {});
      return answer;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Cancels a request: one not started yet is removed and answered `cancelled`; a running one's
   * worker is told (pub/sub) and stops the run. A finished one is left as it is.
   */
  async cancel(requestId: string): Promise<void> {
    await reachRedis(this.client, this.settings, async () => {
      await this.client.set(this.keys.cancel(requestId), "1", "PX", this.settings.answerTtlMs);
      const queue = await this.queue();
      // remove() refuses a job a worker holds the lock of; then the worker answers.
      const removed = await queue.remove(requestId);
      if (removed === 1)
        await writeAnswerOnce(
          this.client,
          this.keys,
          this.settings.answerTtlMs,
          answerWithoutRun(
            requestId,
            "cancelled",
            "cancelled_before_start",
            HOST_ANSWERS.cancelled_before_start,
          ),
        );
      await this.client.publish(this.keys.cancelChannel, requestId);
    });
  }

  /** Counts by state and the workers that sent a heartbeat within their time to live. */
  async status(): Promise<QueueStatus> {
    return await reachRedis(this.client, this.settings, async () => {
      const queue = await this.queue();
      const jobs = await queue.getJobCounts("waiting", "prioritized", "delayed", "active");
      const answers = await this.client.hgetall(this.keys.counts);
      const count = (...statuses: string[]): number =>
        statuses.reduce((sum, status) => sum + Number(answers[status] ?? 0), 0);
      return {
        backend: "redis",
        counts: {
          waiting: (jobs.waiting ?? 0) + (jobs.prioritized ?? 0) + (jobs.delayed ?? 0),
          active: jobs.active ?? 0,
          done: count("ok"),
          interrupted: count("interrupted"),
          failed: count("failed", "timed_out", "refused", "cancelled"),
        },
        workers: await readWorkers(this.client, this.keys),
        capacity: this.capacity,
      };
    });
  }

  /**
   * Answers not yet collected for the audit, oldest first (also those of requests an earlier
   * controller process submitted). Call {@link markCollected} once they are recorded.
   */
  async uncollectedAnswers(limit = 100): Promise<QueueResponse[]> {
    return await reachRedis(this.client, this.settings, async () => {
      const ids = await this.client.zrange(this.keys.uncollected, 0, limit - 1);
      if (ids.length === 0) return [];
      const texts = await this.client.mget(...ids.map((id) => this.keys.answer(id)));
      return ids.flatMap((id, index) => parseAnswer(id, texts[index]) ?? []);
    });
  }

  /** The requests accepted and not answered yet (an earlier process's included), oldest first. */
  async outstanding(limit = 1000): Promise<string[]> {
    return await reachRedis(this.client, this.settings, () =>
      this.client.zrange(this.keys.outstanding, 0, limit - 1),
    );
  }

  /** Forgets that these answers await collection (the answers stay readable until they expire). */
  async markCollected(requestIds: readonly string[]): Promise<void> {
    if (requestIds.length === 0) return;
    await reachRedis(this.client, this.settings, () =>
      this.client.zrem(this.keys.uncollected, ...requestIds),
    );
  }

  /** Stops the sweep and closes the connections; waiting calls are rejected. */
  async close(): Promise<void> {
    await this.watch.close();
    await this.bullQueue?.close().catch(() => {});
    this.client.disconnect();
  }

  private async queue(): Promise<Queue> {
    if (this.bullQueue === undefined) {
      const queue = new Queue(this.settings.queueName, {
        connection: this.client,
        prefix: this.settings.prefix,
      });
      queue.on("error", () => {});
      try {
        await queue.waitUntilReady();
      } catch (error) {
        await queue.close().catch(() => {});
        throw error;
      }
      this.bullQueue = queue;
    }
    return this.bullQueue;
  }

  /**
   * Settles requests whose worker is gone without BullMQ noticing (it notices only while some
   * worker runs its stalled check): a job listed active with no lock on two sweeps in a row
   * is answered `interrupted` (unless it was answered) and removed, so it never runs again and
   * nothing stays active; an outstanding request whose job failed or vanished without an
   * answer is answered `interrupted`. Only requests older than one lock duration are looked at:
   * BullMQ sets the lock in the same step that makes a job active, and a live worker renews it.
   */
  private async settleLost(): Promise<void> {
    if (this.client.status !== "ready") return;
    const queue = await this.queue();
    // Answers nobody collected expire with their key; their ids go with them.
    await this.client.zremrangebyscore(this.keys.uncollected, "-inf", Date.now() - this.settings.answerTtlMs);
    const interrupted = (id: string): Promise<boolean> =>
      writeAnswerOnce(
        this.client,
        this.keys,
        this.settings.answerTtlMs,
        answerWithoutRun(id, "interrupted", "worker_lost", HOST_ANSWERS.worker_lost),
      );
    const active = await queue.getRanges(["active"], 0, 199);
    const seen = new Set<string>();
    for (const id of active) {
      seen.add(id);
      const locked = (await this.client.exists(queue.toKey(`${id}:lock`))) === 1;
      if (locked || !this.lockless.has(id)) {
        if (locked) this.lockless.delete(id);
        else this.lockless.add(id);
        continue;
      }
      this.lockless.delete(id);
      await interrupted(id);
      await queue.remove(id);
    }
    for (const id of this.lockless) if (!seen.has(id)) this.lockless.delete(id);
    const before = Date.now() - this.settings.lockDurationMs;
    const ids = await this.client.zrangebyscore(this.keys.outstanding, "-inf", before, "LIMIT", 0, 100);
    for (const id of ids) {
      const state = await queue.getJobState(id);
      if (state === "failed" || state === "completed" || state === "unknown") await interrupted(id);
    }
  }
}
