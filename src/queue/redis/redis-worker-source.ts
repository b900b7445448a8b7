import { hostname } from "node:os";
import { DelayedError, type Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { ClaimedRequest, QueueResponse, QueueWorkerSource } from "../contract.js";
import { WorkerCannotReachQueueError, WorkerLeftWithoutQueueError } from "../queue-errors.js";
import { answerWithoutRun, parseQueueRequest } from "../request-shape.js";
import { HOST_ANSWERS, writeAnswerOnce } from "./redis-answers.js";
import {
  describeRedisUrl,
  whenUnreachableFor,
  workerConnection,
  workerConnectionOptions,
} from "./redis-connection.js";
import type { RedisJobData, RequestSealer } from "./redis-job-data.js";
import { RedisQueueKeys } from "./redis-queue-keys.js";
import {
  atMostOnceWorkerOptions,
  type RedisQueueSettings,
  type ResolvedRedisQueueSettings,
  resolveRedisQueueSettings,
} from "./redis-queue-settings.js";
import { releaseSkillSlot, renewSkillSlots, takeSkillSlot } from "./redis-skill-slots.js";
import { RedisWorkerRegistration } from "./redis-worker-registry.js";

/** What a worker's side of the Redis backend is given. */
export interface RedisWorkerSourceOptions extends RedisQueueSettings {
  /** Checks the controller's mark on each request (the same secret as the controller's). */
  readonly seal: RequestSealer;
  /** This worker's name in status(); unique in the pool. Default `<host>-<pid>`. */
  readonly name?: string;
  /** How often the worker renews its registration (it expires after three). Default 5 s. */
  readonly heartbeatMs?: number;
  /** How long a request waits before it is offered again when its skill's pool-wide limit is reached. Default 200 ms. */
  readonly skillRetryMs?: number;
  /** Called with errors of the connection or BullMQ that the worker rides out (logging). */
  readonly onError?: (error: Error) => void;
  /**
   * How long {@link RedisQueueWorkerSource.stop} rides out a Redis it cannot reach (counted
   * while unreachable, not while runs go on) before it leaves without it. Default 10 s.
   */
  readonly stopWithoutRedisMs?: number;
  /** How long {@link RedisQueueWorkerSource.start} waits for Redis before it refuses to start. Default 10 s. */
  readonly startWithoutRedisMs?: number;
}

/** How long a stop waits for an unreachable Redis unless told otherwise. */
const STOP_WITHOUT_REDIS_MS = 10_000;
/** How long a start waits for Redis unless told otherwise. */
const START_WITHOUT_REDIS_MS = 10_000;

interface Running {
  readonly abort: AbortController;
  readonly skill: string;
  readonly slot: boolean;
  connectionLost: boolean;
}

/**
 * The worker's side on BullMQ. Each job is checked before it runs: the controller's mark
 * (a job changed in Redis is refused), the claim key (a request that reaches a worker a second
 * time, by any path, is answered `interrupted` and not run), the cancel key, the skill's
 * pool-wide limit (a full skill puts the job back, delayed, before it is claimed). The handler
 * then runs it; its answer is written once. A job BullMQ fails because its worker died is
 * answered `interrupted` here, by the worker that notices. Losing the Redis connection stops the
 * running requests (cancellation and the lock could no longer reach them) and they are answered
 * `interrupted` once it is back.
 */
export class RedisQueueWorkerSource implements QueueWorkerSource {
  readonly settings: ResolvedRedisQueueSettings;
  readonly name: string;
  private readonly keys: RedisQueueKeys;
  private readonly host = hostname();
  private readonly running = new Map<string, Running>();
  private commands: Redis | undefined;
  private subscriber: Redis | undefined;
  private worker: Worker<RedisJobData, string> | undefined;
  private registration: RedisWorkerRegistration | undefined;
  private slotTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: RedisWorkerSourceOptions) {
    this.settings = resolveRedisQueueSettings(options);
    this.keys = new RedisQueueKeys(this.settings);
    this.name = options.name ?? `${this.host}-${process.pid}`;
  }

  /** Starts taking requests; resolves once the worker is connected and registered. */
  async start(handle: (claimed: ClaimedRequest) => Promise<void>, concurrency: number): Promise<void> {
    if (this.worker !== undefined) throw new Error("this worker source is already started");
    const onError = this.options.onError ?? (() => {});
    const commands = workerConnection(this.settings);
    await this.reachOrGiveUp(commands);
    this.commands = commands;
    commands.on("close", () => this.connectionLost());
    const subscriber = workerConnection(this.settings);
    this.subscriber = subscriber;
    subscriber.on("message", (_channel: string, requestId: string) => {
      this.running.get(requestId)?.abort.abort(new Error("cancelled by the controller"));
    });
    await subscriber.subscribe(this.keys.cancelChannel);
    this.registration = new RedisWorkerRegistration(
      commands,
      this.keys,
      { name: this.name, host: this.host, pid: process.pid, concurrency },
      this.options.heartbeatMs ?? 5_000,
      () => this.running.size,
    );
    await this.registration.start();
    const leaseMs = this.settings.lockDurationMs;
    this.slotTimer = setInterval(
      () => {
        const held = new Map<string, string>();
        for (const [id, run] of this.running) if (run.slot) held.set(id, run.skill);
        renewSkillSlots(commands, this.keys, held, leaseMs).catch(onError);
      },
      Math.floor(leaseMs / 3),
    );
    this.slotTimer.unref();
    const worker = new Worker<RedisJobData, string>(
      this.settings.queueName,
      (job, token) => this.process(job, token, handle),
      {
        connection: workerConnectionOptions(this.settings),
        prefix: this.settings.prefix,
        concurrency,
        name: this.name,
        autorun: false,
        ...atMostOnceWorkerOptions(this.settings),
      },
    );
    worker.on("error", onError);
    // Only jobs the processor never saw fail here (their worker died; BullMQ's stalled check
    // failed them): the processor itself always answers and never throws.
    worker.on("failed", (job) => {
      if (job?.id === undefined) return;
      writeAnswerOnce(
        commands,
        this.keys,
        this.settings.answerTtlMs,
        answerWithoutRun(job.id, "interrupted", "worker_lost", HOST_ANSWERS.worker_lost),
      ).catch(onError);
    });
    this.worker = worker;
    await worker.waitUntilReady();
    worker.run().catch(onError);
  }

  /**
   * Takes no new requests, waits for the running ones to be answered, then leaves the pool.
   * When Redis stays unreachable for `stopWithoutRedisMs` meanwhile (gone for good: nothing
   * could be answered or deregistered), it leaves without it and rejects with
   * {@link WorkerLeftWithoutQueueError}: the requests it held stay claimed in Redis, and the
   * controller's sweep or a live worker's stalled check answers them `interrupted` once Redis is
   * back. They never run again.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopBounded();
    return this.stopping;
  }

  /**
   * Waits for the first connection, bounded: a worker pointed at a Redis that is not there (a
   * wrong URL, Redis down) says so and does not start, instead of waiting in silence. Once
   * started, it rides out a Redis that goes away.
   */
  private async reachOrGiveUp(commands: Redis): Promise<void> {
    const boundMs = this.options.startWithoutRedisMs ?? START_WITHOUT_REDIS_MS;
    let reason = "no answer";
    const onError = (error: Error): void => {
      const code = (error as { code?: unknown }).code;
      reason = typeof code === "string" ? code : error.message.slice(0, 200);
    };
    commands.on("error", onError);
    try {
      const reached = await new Promise<boolean>((resolve) => {
        if (commands.status === "ready") return resolve(true);
        const timer = setTimeout(() => {
          commands.off("ready", onReady);
          resolve(false);
        }, boundMs);
        const onReady = (): void => {
          clearTimeout(timer);
          resolve(true);
        };
        commands.once("ready", onReady);
      });
      if (reached) return;
    } finally {
      commands.off("error", onError);
    }
    commands.disconnect();
    throw new WorkerCannotReachQueueError(describeRedisUrl(this.settings.url), boundMs, reason);
  }

  private async stopBounded(): Promise<void> {
    const boundMs = this.options.stopWithoutRedisMs ?? STOP_WITHOUT_REDIS_MS;
    const gone = whenUnreachableFor(this.commands, boundMs);
    try {
      const ended = await Promise.race([this.stopGracefully().then(() => "stopped" as const), gone.promise]);
      if (ended === "stopped") return;
      const held = this.running.size;
      this.leaveWithoutRedis();
      throw new WorkerLeftWithoutQueueError(describeRedisUrl(this.settings.url), boundMs, held);
    } finally {
      gone.cancel();
    }
  }

  private async stopGracefully(): Promise<void> {
    await this.registration?.markStopping();
    await this.worker?.close();
    clearInterval(this.slotTimer);
    await this.registration?.remove();
    await this.subscriber?.quit().catch(() => {});
    await this.commands?.quit().catch(() => {});
  }

  /** Drops every connection without a word to Redis (it cannot be reached) and stops the runs. */
  private leaveWithoutRedis(): void {
    clearInterval(this.slotTimer);
    this.registration?.halt();
    for (const run of this.running.values()) run.abort.abort(new Error("the worker left without its queue"));
    this.worker?.close(true).catch(() => {});
    this.worker?.disconnect().catch(() => {});
    this.subscriber?.disconnect();
    this.commands?.disconnect();
  }

  private async process(
    job: Job<RedisJobData, string>,
    token: string | undefined,
    handle: (claimed: ClaimedRequest) => Promise<void>,
  ): Promise<string> {
    const commands = this.commands;
    const jobId = job.id;
    if (commands === undefined || jobId === undefined) throw new Error("the worker is not started");
    const identity = { name: this.name, host: this.host };
    const once = (response: QueueResponse): Promise<boolean> =>
      writeAnswerOnce(commands, this.keys, this.settings.answerTtlMs, {
        ...response,
        requestId: jobId,
        worker: identity,
      });
    const data: Partial<RedisJobData> = typeof job.data === "object" && job.data !== null ? job.data : {};
    // Shape first (unknown fields dropped), then the mark over exactly what will run.
    const request = parseQueueRequest(data.request);
    if (
      request === undefined ||
      request.requestId !== jobId ||
      !this.options.seal.verify(request, data.seal)
    ) {
      await once(answerWithoutRun(jobId, "refused", "request_tampered", HOST_ANSWERS.request_tampered));
      return "refused";
    }
    const limit = data.skillConcurrency;
    const slot = typeof limit === "number" && limit > 0;
    if (
      slot &&
      !(await takeSkillSlot(commands, this.keys, request.skill, jobId, limit, this.settings.lockDurationMs))
    ) {
      // Not claimed yet: handing it out again later cannot run it twice.
      const retry = this.options.skillRetryMs ?? 200;
      await job.moveToDelayed(Date.now() + retry + Math.floor(Math.random() * retry), token);
      throw new DelayedError();
    }
    try {
      const claimed = await commands.set(
        this.keys.claim(jobId),
        this.name,
        "PX",
        this.settings.answerTtlMs,
        "NX",
      );
      if (claimed !== "OK") {
        await once(answerWithoutRun(jobId, "interrupted", "started_twice", HOST_ANSWERS.started_twice));
        return "interrupted";
      }
      if ((await commands.exists(this.keys.cancel(jobId))) === 1) {
        await once(
          answerWithoutRun(jobId, "cancelled", "cancelled_before_start", HOST_ANSWERS.cancelled_before_start),
        );
        return "cancelled";
      }
      const run: Running = {
        abort: new AbortController(),
        skill: request.skill,
        slot,
        connectionLost: false,
      };
      this.running.set(jobId, run);
      let answered: QueueResponse | undefined;
      const claim: ClaimedRequest = {
        request,
        signal: run.abort.signal,
        answer: async (response) => {
          if (answered !== undefined) return;
          answered = run.connectionLost
            ? answerWithoutRun(
                jobId,
                "interrupted",
                "queue_connection_lost",
                HOST_ANSWERS.queue_connection_lost,
              )
            : response;
          await once(answered);
        },
      };
      try {
        await handle(claim);
      } catch (error) {
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
      } finally {
        if (answered === undefined)
          await claim.answer(
            answerWithoutRun(jobId, "interrupted", "worker_error", HOST_ANSWERS.worker_error),
          );
        this.running.delete(jobId);
      }
      return (answered as QueueResponse | undefined)?.status ?? "interrupted";
    } finally {
      if (slot) await releaseSkillSlot(commands, this.keys, request.skill, jobId).catch(() => {});
    }
  }

  private connectionLost(): void {
    for (const run of this.running.values()) {
      if (run.connectionLost) continue;
      run.connectionLost = true;
      run.abort.abort(new Error("the worker lost its connection to the queue"));
    }
  }
}
