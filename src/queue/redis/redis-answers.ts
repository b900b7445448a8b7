import type { Redis } from "ioredis";
import type { QueueOutcomeStatus, QueueResponse } from "../contract.js";
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

const STATUSES: readonly QueueOutcomeStatus[] = [
  "ok",
  "failed",
  "timed_out",
  "interrupted",
  "refused",
  "cancelled",
];

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
  if (text === null || text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const answer = value as Partial<QueueResponse>;
    if (answer.requestId !== requestId || !STATUSES.includes(answer.status as QueueOutcomeStatus))
      return undefined;
    return answer as QueueResponse;
  } catch {
    return undefined;
  }
}

/** An answer skillgate itself gives (no script output): `interrupted`, `refused`, `cancelled`. */
export function hostAnswer(
  requestId: string,
  status: "interrupted" | "refused" | "cancelled",
  code: string,
  message: string,
  worker?: { readonly name: string; readonly host: string },
): QueueResponse {
  return {
    requestId,
    status,
    exitCode: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 0,
    code,
    message,
    ...(worker !== undefined ? { worker } : {}),
    finishedAt: new Date().toISOString(),
  };
}

/** The `HOST:` texts of skillgate's own answers, by code. */
export const HOST_ANSWERS = {
  worker_lost:
    "HOST: the worker running this request stopped before it answered; the script may have run in part and will not run again.",
  queue_connection_lost:
    "HOST: the worker lost its connection to the queue while the script ran; the run was stopped and will not run again.",
  started_twice: "HOST: this request was handed out a second time and refused; it runs at most once.",
  request_tampered:
    "HOST: the queued request does not carry the controller's mark (it was changed in the queue); the worker refused it.",
  cancelled_before_start:
    "HOST: the request was cancelled before a worker started it; the script did not run.",
  worker_error:
    "HOST: the worker failed before it answered; the script may have run in part and will not run again.",
} as const;
