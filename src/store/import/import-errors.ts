import { type ErrorCode, SkillgateError } from "../../core/errors.js";

/** The codes an import can refuse with; each is documented in docs/import.md. */
export type ImportErrorCode = Extract<
  ErrorCode,
  | "zip_too_large"
  | "invalid_zip"
  | "path_not_allowed"
  | "symlink_not_allowed"
  | "unsupported_entry"
  | "encrypted_entry"
  | "duplicate_entry"
  | "entry_name_mismatch"
  | "source_changed"
  | "too_many_files"
  | "file_too_large"
  | "skill_too_large"
  | "zip_bomb"
  | "missing_skill_file"
  | "not_a_folder"
  | "invalid_github_url"
  | "github_not_found"
  | "github_forbidden"
  | "github_rate_limited"
  | "github_timeout"
  | "github_error"
  | "github_bad_response"
  | "github_response_too_large"
  | "github_truncated"
>;

/**
 * The HTTP status a server answers with for each refusal: 400 for a malformed upload or
 * address, 413 when a limit is exceeded, 422 when the content is well formed but not a skill,
 * 409 when a local folder changed while it was read, and the 4xx/5xx of a gateway when
 * GitHub is the one that failed.
 */
export const IMPORT_HTTP_STATUS: Readonly<Record<ImportErrorCode, number>> = Object.freeze({
  zip_too_large: 413,
  invalid_zip: 400,
  path_not_allowed: 400,
  symlink_not_allowed: 400,
  unsupported_entry: 400,
  encrypted_entry: 400,
  duplicate_entry: 400,
  entry_name_mismatch: 400,
  source_changed: 409,
  too_many_files: 413,
  file_too_large: 413,
  skill_too_large: 413,
  zip_bomb: 413,
  missing_skill_file: 422,
  not_a_folder: 422,
  invalid_github_url: 400,
  github_not_found: 404,
  github_forbidden: 403,
  github_rate_limited: 429,
  github_timeout: 504,
  github_error: 502,
  github_bad_response: 502,
  github_response_too_large: 502,
  github_truncated: 502,
});

/** Details of a refusal; only the keys that apply are present. */
export interface ImportErrorData {
  /** The entry or file the refusal is about, as named in the archive or by the API. */
  readonly path?: string;
  /** The name the entry's local header gives, when it disagrees with `path` (`entry_name_mismatch`). */
  readonly localPath?: string;
  /** The limit that was exceeded. */
  readonly limit?: number;
  /** The amount counted when the limit was exceeded (a lower bound when reading stopped early). */
  readonly actual?: number;
  /** The address requested, for GitHub refusals. */
  readonly url?: string;
  /** The HTTP status GitHub answered with. */
  readonly status?: number;
  /** When a rate limit resets, as an ISO time, if GitHub said. */
  readonly resetAt?: string;
}

/**
 * A refused import. `code` is stable and `httpStatus` is what a server answers with; the
 * message is for people and may change. Nothing was written to the target folder when this
 * is thrown.
 */
export class ImportRefusedError extends SkillgateError<ImportErrorData> {
  /** The HTTP status for this refusal, from {@link IMPORT_HTTP_STATUS}. */
  readonly httpStatus: number;
  declare readonly code: ImportErrorCode;

  constructor(
    code: ImportErrorCode,
    message: string,
    data: ImportErrorData = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, withoutUndefined(data), options);
    this.httpStatus = IMPORT_HTTP_STATUS[code];
  }
}

/** True when `error` is an import refusal, optionally with the given code. */
export function isImportRefusal(error: unknown, code?: ImportErrorCode): error is ImportRefusedError {
  return error instanceof ImportRefusedError && (code === undefined || error.code === code);
}

function withoutUndefined(data: ImportErrorData): ImportErrorData {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (value !== undefined) result[key] = value;
  return result as ImportErrorData;
}
