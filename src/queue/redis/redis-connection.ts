import type { RedisOptions as BullRedisOptions } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { QueueUnavailableError } from "../queue-errors.js";
import type { ResolvedRedisQueueSettings } from "./redis-queue-settings.js";

/**
 * The two kinds of Redis connection. The controller's fails fast: no offline queue, one try
 * per command, a connect timeout, so a submit while Redis is down is refused at once
 * (`queue_unavailable`) instead of waiting. A worker's waits: BullMQ's blocking reads need
 * `maxRetriesPerRequest: null`, and a worker should ride out a Redis restart and go on.
 */

/** `host:port` of a Redis URL, without user or password, for messages and logs. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port === "" ? "6379" : parsed.port}`;
  } catch {
    return "the configured Redis";
  }
}

/** The controller's connection: every command fails within the settings' timeout when Redis is away. */
export function controllerConnection(settings: ResolvedRedisQueueSettings): Redis {
  const client = new Redis(settings.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: settings.commandTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
    // Keep reconnecting in the background (a later submit succeeds once Redis is back), not too often.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
  } satisfies RedisOptions);
  // An unreachable Redis is reported to callers as queue_unavailable; the event itself is not an error of the process.
  client.on("error", () => {});
  return client;
}

/** A worker's options (BullMQ duplicates its own connections from these). */
export function workerConnectionOptions(settings: ResolvedRedisQueueSettings): BullRedisOptions {
  const url = new URL(settings.url);
  return {
    host: url.hostname,
    port: url.port === "" ? 6379 : Number(url.port),
    ...(url.username !== "" ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== "" ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
    ...(url.protocol === "rediss:" ? { tls: { servername: url.hostname } } : {}),
    maxRetriesPerRequest: null,
    connectTimeout: settings.commandTimeoutMs,
    retryStrategy: (times: number) => Math.min(times * 200, 2_000),
  };
}

/** A worker's own command connection (answers, claims, heartbeats). */
export function workerConnection(settings: ResolvedRedisQueueSettings): Redis {
  const client = new Redis(workerConnectionOptions(settings));
  client.on("error", () => {});
  return client;
}

/**
 * Runs `operation` on the controller's connection, turning every failure to reach Redis (not
 * connected, refused, timed out) into {@link QueueUnavailableError}. Bounded: it never waits
 * longer than the command timeout, even for a connection still being made.
 */
export async function reachRedis<Result>(
  client: Redis,
  settings: ResolvedRedisQueueSettings,
  operation: () => Promise<Result>,
): Promise<Result> {
  const where = `redis at ${describeRedisUrl(settings.url)}`;
  if (client.status !== "ready") await waitReady(client, settings.commandTimeoutMs, where);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      operation(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new QueueUnavailableError(where, `no answer within ${settings.commandTimeoutMs} ms`)),
          settings.commandTimeoutMs,
        );
        timer.unref();
      }),
    ]);
  } catch (error) {
    if (error instanceof QueueUnavailableError) throw error;
    if (isConnectionError(error)) throw new QueueUnavailableError(where, reasonOf(error), { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** One wait per connection, however many calls arrive while it connects (no listener per call). */
const readiness = new WeakMap<Redis, Promise<void>>();

function waitReady(client: Redis, timeoutMs: number, where: string): Promise<void> {
  if (client.status === "end")
    return Promise.reject(new QueueUnavailableError(where, "the connection is closed"));
  const pending = readiness.get(client);
  if (pending !== undefined) return pending;
  const wait = waitReadyOnce(client, timeoutMs, where).finally(() => readiness.delete(client));
  readiness.set(client, wait);
  return wait;
}

async function waitReadyOnce(client: Redis, timeoutMs: number, where: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let lastError = "not connected";
    const onError = (error: Error): void => {
      lastError = reasonOf(error);
    };
    const done = (error?: Error): void => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("error", onError);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = (): void => done();
    const timer = setTimeout(() => done(new QueueUnavailableError(where, lastError)), timeoutMs);
    timer.unref();
    client.on("ready", onReady);
    client.on("error", onError);
  });
}

function isConnectionError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true;
  return /Connection is closed|Stream isn't writeable|enableOfflineQueue|Reached the max retries|Command timed out/i.test(
    error.message,
  );
}

function reasonOf(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error.message.slice(0, 200);
}

/** A wait that can be called off. */
export interface CancellableWait<Value> {
  readonly promise: Promise<Value>;
  cancel(): void;
}

/**
 * Resolves with `"unreachable"` once `client` has been without a connection for `boundMs` in a
 * row (a reconnect in between starts the count again); never when `client` is undefined. Its
 * timer keeps the process alive until it resolves or is cancelled: a stop waiting on it must
 * not end silently.
 */
export function whenUnreachableFor(
  client: Redis | undefined,
  boundMs: number,
): CancellableWait<"unreachable"> {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<"unreachable">((resolve) => {
    if (client === undefined) return;
    let since: number | undefined;
    const stepMs = Math.max(20, Math.min(250, Math.floor(boundMs / 4)));
    timer = setInterval(() => {
      if (client.status === "ready") {
        since = undefined;
        return;
      }
      since ??= Date.now();
      if (Date.now() - since >= boundMs) {
        clearInterval(timer);
        resolve("unreachable");
      }
    }, stepMs);
  });
  return { promise, cancel: () => clearInterval(timer) };
}
