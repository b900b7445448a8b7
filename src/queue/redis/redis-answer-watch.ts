import type { Redis } from "ioredis";
import { SkillgateError } from "../../core/errors.js";
import type { QueueResponse } from "../contract.js";
import { parseAnswer } from "./redis-answers.js";
import type { RedisQueueKeys } from "./redis-queue-keys.js";

/** What {@link RedisAnswerWatch} is given. */
export interface RedisAnswerWatchOptions {
  readonly keys: RedisQueueKeys;
  /** The controller's command connection (answers are read with it). */
  readonly commands: Redis;
  /** A connection of its own for the subscription; closed with the watch. */
  readonly subscriber: Redis;
  readonly sweepMs: number;
  /** Also run on every sweep (settling lost requests); its errors are ignored until the next one. */
  readonly onSweep: () => Promise<void>;
}

interface Waiter {
  resolve(response: QueueResponse): void;
  reject(error: Error): void;
}

/**
 * Every waiting call of one controller over two connections, however many there are: the
 * answered channel says which request to read, and a sweep reads the answer keys of all waiting
 * calls in one MGET, so an announcement missed while the connection was down costs at most one
 * sweep. Answers are kept in Redis, so nothing depends on the message arriving.
 */
export class RedisAnswerWatch {
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;
  private closed = false;

  constructor(private readonly options: RedisAnswerWatchOptions) {
    options.subscriber.on("message", (_channel: string, requestId: string) => {
      if (this.waiters.has(requestId)) this.read([requestId]).catch(() => {});
    });
    options.subscriber.subscribe(options.keys.answeredChannel).catch(() => {});
    // A (re)connected subscription may have missed announcements: read at once.
    options.subscriber.on("ready", () => {
      this.read([...this.waiters.keys()]).catch(() => {});
    });
    this.timer = setInterval(() => this.sweep(), options.sweepMs);
    this.timer.unref();
  }

  /** Resolves with the answer of `requestId` once there is one; `stop` ends only this wait (an `AbortError`). */
  answerOf(requestId: string, stop?: AbortSignal): Promise<QueueResponse> {
    if (this.closed) return Promise.reject(closedError());
    let onStop: (() => void) | undefined;
    const answer = new Promise<QueueResponse>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      const list = this.waiters.get(requestId) ?? [];
      list.push(waiter);
      this.waiters.set(requestId, list);
      onStop = () => {
        const left = (this.waiters.get(requestId) ?? []).filter((each) => each !== waiter);
        if (left.length > 0) this.waiters.set(requestId, left);
        else this.waiters.delete(requestId);
        reject(new DOMException("the wait was stopped", "AbortError"));
      };
    });
    if (onStop !== undefined && stop !== undefined) {
      const stopNow = onStop;
      if (stop.aborted) stopNow();
      else stop.addEventListener("abort", stopNow, { once: true });
      answer.finally(() => stop.removeEventListener("abort", stopNow)).catch(() => {});
    }
    // Registered first, then read: an answer written in between is caught by one or the other.
    this.read([requestId]).catch(() => {});
    return answer;
  }

  /** Stops the sweep, rejects the waiting calls, closes the subscription. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const list of this.waiters.values()) for (const waiter of list) waiter.reject(closedError());
    this.waiters.clear();
    this.options.subscriber.disconnect();
  }

  private sweep(): void {
    if (this.sweeping || this.closed) return;
    this.sweeping = true;
    const work = async (): Promise<void> => {
      if (this.waiters.size > 0) await this.read([...this.waiters.keys()]);
      await this.options.onSweep();
    };
    work()
      .catch(() => {})
      .finally(() => {
        this.sweeping = false;
      });
  }

  private async read(requestIds: readonly string[]): Promise<void> {
    if (requestIds.length === 0 || this.options.commands.status !== "ready") return;
    for (let start = 0; start < requestIds.length; start += 500) {
      const slice = requestIds.slice(start, start + 500);
      const texts = await this.options.commands.mget(...slice.map((id) => this.options.keys.answer(id)));
      slice.forEach((id, index) => {
        const answer = parseAnswer(id, texts[index]);
        if (answer === undefined) return;
        const list = this.waiters.get(id);
        this.waiters.delete(id);
        for (const waiter of list ?? []) waiter.resolve(answer);
      });
    }
  }
}

function closedError(): SkillgateError {
  return new SkillgateError(
    "queue_unavailable",
    "HOST: the queue client was closed before the answer came.",
    {},
  );
}
