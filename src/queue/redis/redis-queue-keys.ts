import type { ResolvedRedisQueueSettings } from "./redis-queue-settings.js";

/**
 * skillgate's own keys beside BullMQ's, under the same `{prefix}:queue:` so one Redis Cluster
 * slot holds them all. A request id has no `:` (checked on submit), so `sg:` names never meet a
 * BullMQ job key (`{prefix}:queue:<id>`).
 */
export class RedisQueueKeys {
  private readonly base: string;

  constructor(settings: ResolvedRedisQueueSettings) {
    this.base = `${settings.prefix}:${settings.queueName}:sg`;
  }

  /** Set once on submit: the same id is never accepted twice. */
  accepted(requestId: string): string {
    return `${this.base}:accepted:${requestId}`;
  }
  /** The one answer (JSON), written once with `SET NX`. */
  answer(requestId: string): string {
    return `${this.base}:answer:${requestId}`;
  }
  /** Set by the first worker that starts the request; a second start is refused. */
  claim(requestId: string): string {
    return `${this.base}:claim:${requestId}`;
  }
  /** Set when the controller cancels; a worker that has not started yet skips the run. */
  cancel(requestId: string): string {
    return `${this.base}:cancel:${requestId}`;
  }
  /** Sorted set: accepted and not answered yet (score: submit time). */
  get outstanding(): string {
    return `${this.base}:outstanding`;
  }
  /** Sorted set: answered and not yet collected by the controller for its audit (score: answer time). */
  get uncollected(): string {
    return `${this.base}:uncollected`;
  }
  /** Hash: answers by status, for status(). */
  get counts(): string {
    return `${this.base}:counts`;
  }
  /** Sorted set of worker names (score: last heartbeat). */
  get workers(): string {
    return `${this.base}:workers`;
  }
  /** Hash: one worker's registration, expiring unless its heartbeat renews it. */
  worker(name: string): string {
    return `${this.base}:worker:${name}`;
  }
  /** Sorted set: requests running under one skill's pool-wide limit (score: lease expiry). */
  skillSlots(skill: string): string {
    return `${this.base}:slots:${skill}`;
  }
  /** Pub/sub: a request id each time one is answered. */
  get answeredChannel(): string {
    return `${this.base}:answered`;
  }
  /** Pub/sub: a request id each time one is cancelled. */
  get cancelChannel(): string {
    return `${this.base}:cancelled`;
  }
}
