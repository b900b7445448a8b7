import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { isSkillgateError } from "../../core/errors.js";
import { NODE_HTTP_STATUS, type NodeErrorCode } from "../../nodes/controller/node-errors.js";
import { STORE_HTTP_STATUS, type StoreErrorCode } from "../../store/errors.js";
import { IMPORT_HTTP_STATUS, type ImportErrorCode } from "../../store/import/import-errors.js";

/** The body of every error answer of the HTTP API. */
export interface ApiErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly data: Readonly<Record<string, unknown>>;
  };
}

/**
 * Statuses of the codes that are not store refusals. A store code always answers with
 * {@link STORE_HTTP_STATUS}; anything not listed is 400 (the request asked for something
 * that was refused) except an unexpected error, which is 500 with no details.
 */
const OTHER_STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  unauthorized: 401,
  forbidden: 403,
  csrf_missing: 403,
  host_not_allowed: 403,
  origin_not_allowed: 403,
  too_many_attempts: 429,
  invalid_zip: 400,
  io_error: 500,
  server_stopping: 503,
  approval_not_found: 404,
  approval_expired: 410,
  approval_already_answered: 409,
  approval_settled: 409,
  approval_queue_full: 429,
  queue_full: 429,
  queue_unavailable: 503,
  generation_not_found: 404,
  generation_not_waiting: 409,
};

/** The HTTP status an error answers with. */
export function errorStatus(error: unknown): ContentfulStatusCode {
  if (!isSkillgateError(error)) return 500;
  const storeStatus = (STORE_HTTP_STATUS as Readonly<Record<string, number>>)[error.code as StoreErrorCode];
  if (storeStatus !== undefined) return storeStatus as ContentfulStatusCode;
  // An import's refusals (a zip bomb, GitHub's answers) have their statuses in docs/import.md.
  const importStatus = (IMPORT_HTTP_STATUS as Readonly<Record<string, number>>)[
    error.code as ImportErrorCode
  ];
  if (importStatus !== undefined) return importStatus as ContentfulStatusCode;
  // The node registry's and the agent routes' refusals are in docs/nodes.md.
  const nodeStatus = (NODE_HTTP_STATUS as Readonly<Record<string, number>>)[error.code as NodeErrorCode];
  if (nodeStatus !== undefined) return nodeStatus as ContentfulStatusCode;
  return OTHER_STATUS[error.code] ?? 400;
}

/** The JSON body of an error: a SkillgateError's code, message and data; nothing of any other. */
export function errorBody(error: unknown): ApiErrorBody {
  if (!isSkillgateError(error)) {
    return { error: { code: "internal_error", message: "the server failed; see its log", data: {} } };
  }
  return { error: { code: error.code, message: error.message, data: { ...error.data } } };
}

/** Answers `error` as the API's JSON error with its status. */
export function errorResponse(context: Context, error: unknown): Response {
  return context.json(errorBody(error), errorStatus(error));
}

/** An error answer made by the server itself (no SkillgateError behind it): auth, Host, CSRF. */
export function apiError(
  context: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  data: Readonly<Record<string, unknown>> = {},
): Response {
  return context.json({ error: { code, message, data } } satisfies ApiErrorBody, status);
}
