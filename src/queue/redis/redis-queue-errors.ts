import { SkillgateError } from "../../core/errors.js";

/**
 * The refusals of the Redis backend's `submit`. Each message starts `HOST:`: it is shown to the
 * model as it is, and a model can tell it from a script's own output.
 */

/** The queue holds its bound of waiting requests; this one was not accepted. */
export class QueueFullError extends SkillgateError<{ waiting: number; capacity: number }> {
  constructor(waiting: number, capacity: number) {
    super(
      "queue_full",
      `HOST: the worker queue is full (${waiting} requests waiting, the limit is ${capacity}); the script did not run. Try again later.`,
      { waiting, capacity },
    );
  }
}

/** Redis could not be reached in time; nothing was accepted. `where` never holds a password. */
export class QueueUnavailableError extends SkillgateError<{ where: string; reason: string }> {
  constructor(where: string, reason: string, options?: { cause?: unknown }) {
    super(
      "queue_unavailable",
      `HOST: the worker queue at ${where} cannot be reached (${reason}); the script did not run. Ask the owner to check the queue's Redis.`,
      { where, reason },
      options,
    );
  }
}

/** A request with this id was accepted before: an id names one request, once. */
export class DuplicateRequestError extends SkillgateError<{ requestId: string }> {
  constructor(requestId: string) {
    super("duplicate_request", `HOST: request ${requestId} was already submitted; it is not run again.`, {
      requestId,
    });
  }
}
