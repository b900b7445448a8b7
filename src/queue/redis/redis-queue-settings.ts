/**
 * The Redis backend's settings, and the BullMQ options that make it at most once
 * (DESIGN.md invariant 8, docs/queue.md "Why not BullMQ's defaults"). BullMQ's defaults are
 * at least once: a job whose worker died is put back in the queue and run again. Here a
 * request is handed out once: one attempt, a stalled job is failed (never re-queued), and a
 * job is never started twice (skillgate's claim key, set by the first worker that starts it).
 * A failed or stalled job is answered `interrupted`.
 */

/** What a controller and its workers agree on; the same values on both sides. */
export interface RedisQueueSettings {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. */
  readonly url: string;
  /** The BullMQ queue name (no `:`). Default `runs`. */
  readonly queueName?: string;
  /** The key prefix; in braces so every key hashes to one Redis Cluster slot. Default `{skillgate}`. */
  readonly prefix?: string;
  /**
   * How long a worker's claim on a running job lasts without renewal (renewed at half of it).
   * A worker that dies is noticed after at most this plus {@link stalledIntervalMs}, and its
   * request answered `interrupted`. Too short and a busy worker (a long GC pause, a saturated
   * machine) loses its claim while its script still runs: the request is then answered
   * `interrupted` although it may finish; it still runs only once. Default 30 s.
   */
  readonly lockDurationMs?: number;
  /** How often workers look for jobs whose worker died. Default 15 s. */
  readonly stalledIntervalMs?: number;
  /** How long an answer is kept in Redis for a controller to collect (after a restart, for the audit). Default 7 days. */
  readonly answerTtlMs?: number;
  /** Connecting and each controller command give up after this; the caller is refused, never left waiting. Default 2 s. */
  readonly commandTimeoutMs?: number;
}

/** {@link RedisQueueSettings} with every default filled in. */
export interface ResolvedRedisQueueSettings {
  readonly url: string;
  readonly queueName: string;
  readonly prefix: string;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  readonly answerTtlMs: number;
  readonly commandTimeoutMs: number;
}

/** The defaults, documented in docs/queue.md. */
export const REDIS_QUEUE_DEFAULTS = {
  queueName: "runs",
  prefix: "{skillgate}",
  lockDurationMs: 30_000,
  stalledIntervalMs: 15_000,
  answerTtlMs: 7 * 24 * 60 * 60 * 1000,
  commandTimeoutMs: 2_000,
} as const;

/** Fills in the defaults and checks the values. */
export function resolveRedisQueueSettings(settings: RedisQueueSettings): ResolvedRedisQueueSettings {
  const resolved = {
    url: settings.url,
    queueName: settings.queueName ?? REDIS_QUEUE_DEFAULTS.queueName,
    prefix: settings.prefix ?? REDIS_QUEUE_DEFAULTS.prefix,
    lockDurationMs: settings.lockDurationMs ?? REDIS_QUEUE_DEFAULTS.lockDurationMs,
    stalledIntervalMs: settings.stalledIntervalMs ?? REDIS_QUEUE_DEFAULTS.stalledIntervalMs,
    answerTtlMs: settings.answerTtlMs ?? REDIS_QUEUE_DEFAULTS.answerTtlMs,
    commandTimeoutMs: settings.commandTimeoutMs ?? REDIS_QUEUE_DEFAULTS.commandTimeoutMs,
  };
  if (!/^rediss?:\/\//.test(resolved.url))
    throw new Error(`the queue's Redis URL must start with redis:// or rediss://`);
  if (resolved.queueName.includes(":") || resolved.queueName === "")
    throw new Error(`the queue name must be non-empty and have no ":"`);
  for (const [name, value] of Object.entries(resolved))
    if (typeof value === "number" && (!Number.isInteger(value) || value <= 0))
      throw new Error(`${name} must be a positive whole number of milliseconds`);
  return resolved;
}

/**
 * The options of every job: one attempt, no backoff; finished jobs leave BullMQ's sets (the
 * answer lives in skillgate's own key, see redis-answers.ts), the last thousand kept to look at.
 */
export const AT_MOST_ONCE_JOB_OPTIONS = {
  attempts: 1,
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 1000 },
} as const;

/**
 * The worker options that keep a job from running twice. `maxStalledCount: 0`: a job whose lock
 * lapsed is failed on the next look (BullMQ marks it and the worker that fetches it next fails
 * it without calling the processor), not re-queued. BullMQ's `maxStartedAttempts` is not used:
 * a job put back, delayed, because its skill's pool-wide limit was reached has been fetched but
 * not started, and would count; the claim key is the "started once" rule instead.
 */
export function atMostOnceWorkerOptions(settings: ResolvedRedisQueueSettings) {
  return {
    maxStalledCount: 0,
    lockDuration: settings.lockDurationMs,
    lockRenewTime: Math.floor(settings.lockDurationMs / 2),
    stalledInterval: settings.stalledIntervalMs,
    removeOnComplete: AT_MOST_ONCE_JOB_OPTIONS.removeOnComplete,
    removeOnFail: AT_MOST_ONCE_JOB_OPTIONS.removeOnFail,
  } as const;
}
