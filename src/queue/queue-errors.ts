import { SkillgateError } from "../core/errors.js";

/** A submit past the queue's bound: the pool is busy; the caller may try again later. */
export class QueueFullError extends SkillgateError<{ waiting: number; capacity: number }> {
  constructor(waiting: number, capacity: number) {
    super("queue_full", `HOST: the worker pool's queue is full (${waiting} waiting); try again later.`, {
      waiting,
      capacity,
    });
  }
}

/** The queue's backend cannot be reached (a folder that cannot be written, Redis down). */
export class QueueUnavailableError extends SkillgateError<{ backend: string; reason: string }> {
  constructor(backend: string, reason: string, options?: { cause?: unknown }) {
    super(
      "queue_unavailable",
      `HOST: the worker pool's queue (${backend}) cannot be reached (${reason}), so the script did not run; tell the host's owner.`,
      { backend, reason },
      options,
    );
  }
}

/** A request id accepted before: an id names one request, run at most once (the Redis backend). */
export class DuplicateRequestError extends SkillgateError<{ requestId: string }> {
  constructor(requestId: string) {
    super("duplicate_request", `HOST: request ${requestId} was already submitted; it is not run again.`, {
      requestId,
    });
  }
}

/** A request larger than a queue carries (`MAX_REQUEST_BYTES` of JSON, request-shape.ts). */
export class QueueRequestTooLargeError extends SkillgateError<{ limit: number }> {
  constructor(limit: number) {
    super(
      "limit_exceeded",
      `HOST: the request is over ${limit / 1024} KiB as JSON, more than the worker pool's queue carries; send smaller arguments.`,
      { limit },
    );
  }
}

/**
 * A worker asked to stop while its queue stayed unreachable: it left without answering what it
 * held (the queue answers those `interrupted` once it is back). For the worker's own log, not a
 * model: it refuses nothing to one.
 */
export class WorkerLeftWithoutQueueError extends SkillgateError<{
  queue: string;
  waitedMs: number;
  held: number;
}> {
  constructor(queue: string, waitedMs: number, held: number) {
    super(
      "queue_unavailable",
      `${queue} was unreachable for ${Math.round(waitedMs / 1000)} s while the worker stopped, so it left without it; ` +
        `${held} request${held === 1 ? "" : "s"} it held stay claimed and will be answered interrupted (never run again) once the queue is back.`,
      { queue, waitedMs, held },
    );
  }
}

/** A worker that could not reach its queue when it started: it does not start (for its own log, not a model). */
export class WorkerCannotReachQueueError extends SkillgateError<{
  queue: string;
  waitedMs: number;
  reason: string;
}> {
  constructor(queue: string, waitedMs: number, reason: string) {
    super(
      "queue_unavailable",
      `${queue} cannot be reached (${reason}) within ${Math.round(waitedMs / 1000)} s, so the worker did not start; check the URL and that Redis runs there.`,
      { queue, waitedMs, reason },
    );
  }
}
