import { type ErrorCode, SkillgateError } from "../../core/errors.js";

/**
 * The codes a package refusal carries, on the controller (building, serving) and on the
 * agent (checking, unpacking, installing). Each is listed in docs/nodes.md, "Packages".
 */
export type PackageErrorCode = Extract<
  ErrorCode,
  | "package_invalid"
  | "package_symlink"
  | "package_hardlink"
  | "package_special_entry"
  | "package_path_not_allowed"
  | "package_duplicate_entry"
  | "package_entry_too_large"
  | "package_too_large"
  | "package_too_many_entries"
  | "package_hash_mismatch"
  | "package_sha256_mismatch"
  | "package_size_mismatch"
  | "package_stale"
  | "package_not_found"
  | "package_build_failed"
>;

/** Details of a package refusal; only the keys that apply are present. */
export interface PackageErrorData {
  /** The skill the package is of. */
  readonly name?: string | undefined;
  /** Its full content hash. */
  readonly hash?: string | undefined;
  /** The archive entry the refusal is about, printable (control characters escaped). */
  readonly entry?: string | undefined;
  /** The limit that was exceeded. */
  readonly limit?: number | undefined;
  /** What was counted or found when it was refused. */
  readonly actual?: number | string | undefined;
  /** What was expected (a SHA-256, a size, a hash). */
  readonly expected?: number | string | undefined;
}

/**
 * A refused package. The code is stable; the message is for people. When the agent throws
 * it, nothing was installed and the staging folder is gone.
 */
export class PackageError extends SkillgateError<PackageErrorData> {
  declare readonly code: PackageErrorCode;

  constructor(
    code: PackageErrorCode,
    message: string,
    data: PackageErrorData = {},
    options?: { cause?: unknown },
  ) {
    const present: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) if (value !== undefined) present[key] = value;
    super(code, message, present as PackageErrorData, options);
  }
}

/** True when `error` is a {@link PackageError}, optionally with the given code. */
export function isPackageError(error: unknown, code?: PackageErrorCode): error is PackageError {
  return error instanceof PackageError && (code === undefined || error.code === code);
}
