import type { JsonValue } from "../core/safe-json.js";
import { isPlainObject } from "../core/safe-json.js";
import type { QueueOutcomeStatus, QueueRequest, QueueResponse } from "./contract.js";

/**
 * Reading a request or a response that came back from outside the process (a file, a job):
 * every field checked for its type, unknown fields dropped, so a worker never acts on a value
 * of the wrong shape. Both backends use these.
 */

/** The largest request a queue carries, as JSON text. */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** The largest response, as JSON text: two capped streams and their escapes. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const HASH = /^[0-9a-f]{64}$/;
const STATUSES: readonly QueueOutcomeStatus[] = [
  "ok",
  "failed",
  "timed_out",
  "interrupted",
  "refused",
  "cancelled",
];

/** The request `value` holds, or undefined when any field is missing or of the wrong type. */
export function parseQueueRequest(value: unknown): QueueRequest | undefined {
  if (!isPlainObject(value)) return undefined;
  const {
    requestId,
    skill,
    hash,
    script,
    argv,
    timeoutMs,
    maxOutputBytes,
    network,
    allowedDomains,
    submittedAt,
  } = value;
  const args = value.arguments;
  if (
    typeof requestId !== "string" ||
    typeof skill !== "string" ||
    typeof hash !== "string" ||
    !HASH.test(hash) ||
    typeof script !== "string" ||
    !isPlainObject(args) ||
    (argv !== undefined && !(Array.isArray(argv) && argv.every((item) => typeof item === "string"))) ||
    !positiveInteger(timeoutMs) ||
    !positiveInteger(maxOutputBytes) ||
    (network !== "none" && network !== "bridge") ||
    !Array.isArray(allowedDomains) ||
    !allowedDomains.every((item) => typeof item === "string") ||
    typeof submittedAt !== "string"
  )
    return undefined;
  return {
    requestId,
    skill,
    hash,
    script,
    arguments: args as { [key: string]: JsonValue },
    ...(argv !== undefined ? { argv: argv as string[] } : {}),
    timeoutMs: timeoutMs as number,
    maxOutputBytes: maxOutputBytes as number,
    network,
    allowedDomains: allowedDomains as string[],
    submittedAt,
  };
}

/** The response `value` holds, or undefined when it does not have the contract's shape. */
export function parseQueueResponse(value: unknown): QueueResponse | undefined {
  if (!isPlainObject(value)) return undefined;
  const {
    requestId,
    status,
    exitCode,
    stdout,
    stderr,
    stdoutTruncated,
    stderrTruncated,
    durationMs,
    code,
    message,
  } = value;
  const worker = value.worker;
  if (
    typeof requestId !== "string" ||
    !STATUSES.includes(status as QueueOutcomeStatus) ||
    !(exitCode === null || Number.isInteger(exitCode)) ||
    typeof stdout !== "string" ||
    typeof stderr !== "string" ||
    typeof stdoutTruncated !== "boolean" ||
    typeof stderrTruncated !== "boolean" ||
    typeof durationMs !== "number" ||
    (code !== undefined && typeof code !== "string") ||
    (message !== undefined && typeof message !== "string") ||
    typeof value.finishedAt !== "string"
  )
    return undefined;
  const workerOk =
    isPlainObject(worker) && typeof worker.name === "string" && typeof worker.host === "string";
  return {
    requestId,
    status: status as QueueOutcomeStatus,
    exitCode: exitCode as number | null,
    stdout,
    stderr,
    stdoutTruncated,
    stderrTruncated,
    durationMs,
    ...(code !== undefined ? { code } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(workerOk ? { worker: { name: worker.name as string, host: worker.host as string } } : {}),
    finishedAt: value.finishedAt,
  };
}

/**
 * An answer without a run: `interrupted`, `refused` or `cancelled`, with its stable code and the
 * `HOST:` text a model is shown (ending in the code in brackets, as every refusal does).
 */
export function answerWithoutRun(
  requestId: string,
  status: "interrupted" | "refused" | "cancelled",
  code: string,
  text: string,
  worker?: { readonly name: string; readonly host: string },
): QueueResponse {
  const body = text.startsWith("HOST:") ? text : `HOST: ${text}`;
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
    message: `${body} [${code}]`,
    ...(worker !== undefined ? { worker } : {}),
    finishedAt: new Date().toISOString(),
  };
}

/** The `interrupted` answer for a request whose worker went away (invariant 8). */
export function interruptedAnswer(
  request: { requestId: string; skill?: string },
  worker?: string,
): QueueResponse {
  const who = worker !== undefined ? `worker ${worker}` : "its worker";
  return answerWithoutRun(
    request.requestId,
    "interrupted",
    "worker_lost",
    `${who} went away while it held this request, so the script may or may not have started; it will not be run again. Retry only if the script is safe to run twice.`,
  );
}

function positiveInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}
