import type { Redis } from "ioredis";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { QueueResponse } from "../contract.js";
import { MAX_RESPONSE_BYTES, parseQueueResponse } from "../request-shape.js";
import type { RedisQueueKeys } from "./redis-queue-keys.js";

/**
 * A request's one answer, in skillgate's own key rather than BullMQ's return value: it is
 * written once (`SET NX`: the first of the worker, the stall handling or a cancel wins; any
 * later one is dropped), it outlives BullMQ's removal of finished jobs for `answerTtlMs`, and a
 * controller started after the answer can still read it for the audit. The same script counts
 * it, moves the id from "outstanding" to "uncollected" and announces it on the answered channel.
 */
const WRITE_ONCE = `
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[3]) then
  redis.call("HINCRBY", KEYS[2], ARGV[2], 1)
  redis.call("ZREM", KEYS[3], ARGV[4])
  redis.call("ZADD", KEYS[4], ARGV[5], ARGV[4])
  redis.call("PUBLISH", ARGV[6], ARGV[4])
  return 1
end
return 0
`;

/** Writes `response` as the answer of its request unless one exists; true when this one was kept. */
export async function writeAnswerOnce(
  client: Redis,
  keys: RedisQueueKeys,
  answerTtlMs: number,
  response: QueueResponse,
): Promise<boolean> {
  const written = await client.eval(
    WRITE_ONCE,
    4,
    keys.answer(response.requestId),
    keys.counts,
    keys.outstanding,
    keys.uncollected,
    JSON.stringify(response),
    response.status,
    String(answerTtlMs),
    response.requestId,
    String(Date.now()),
    keys.answeredChannel,
  );
  return written === 1;
}

/** Reads an answer's JSON; undefined when it is missing or not an answer of `requestId`. */
export function parseAnswer(requestId: string, text: string | null | undefined): QueueResponse | undefined {
  if (text === null || text === undefined || text.length > MAX_RESPONSE_BYTES) return undefined;
  try {
    const answer = parseQueueResponse(parseJsonSafely(text));
    return answer?.requestId === requestId ? answer : undefined;
  } catch {
    return undefined;
  }
}

/** The `HOST:` texts of the Redis backend's own answers, by code (answerWithoutRun adds the code). */
export const HOST_ANSWERS = {
  worker_lost:
    "the worker running this request stopped before it answered; the script may have run in part and will not run again.",
  queue_connection_lost:
    "the worker lost its connection to the queue while the script ran; the run was stopped and will not run again.",
  started_twice: "this request was handed out a second time and refused; it runs at most once.",
  request_tampered:
    "the queued request does not carry the controller's mark (it was changed in the queue); the worker refused it.",
  cancelled_before_start: "the request was cancelled before a worker started it; the script did not run.",
  worker_error:
    "the worker failed before it answered; the script may have run in part and will not run again.",
} as const;
