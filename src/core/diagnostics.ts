/**
 * Diagnostics: problems found in user content, returned as data. A bad SKILL.md never
 * throws; it yields diagnostics with stable codes, a severity and a hint on how to fix it.
 */

/** How bad a problem is: an `error` stops a skill from loading (or fails strict validation). */
export type Severity = "error" | "warning";

/** Stable codes for problems in skill content and skill folders. */
export type DiagnosticCode =
  | "missing_skill_file"
  | "unreadable_file"
  | "binary_content"
  | "file_too_large"
  | "front_matter_too_large"
  | "unterminated_front_matter"
  | "missing_front_matter"
  | "invalid_front_matter"
  | "yaml_alias_limit"
  | "duplicate_key"
  | "front_matter_not_mapping"
  | "missing_name"
  | "invalid_name"
  | "name_too_long"
  | "name_mismatch"
  | "missing_description"
  | "description_too_long"
  | "invalid_field"
  | "unknown_field"
  | "invalid_metadata"
  | "invalid_allowed_tools"
  | "invalid_governance"
  | "invalid_parameters_schema"
  | "symlink_not_allowed"
  | "path_not_allowed"
  | "limit_exceeded"
  | "shadowed"
  | "not_found"
  | "invalid_script_metadata"
  | "invalid_requirement"
  | "invalid_package_json"
  | "package_lock_missing";

/** One problem, located as precisely as skillgate can. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** The file or folder the problem is in, when there is one. */
  readonly path?: string;
  /** The field (`name`, `metadata.skillgate.tier`) the problem is about. */
  readonly field?: string;
  /** How a person fixes it. */
  readonly hint?: string;
}

/** Builds a diagnostic without undefined-valued optional keys (exactOptionalPropertyTypes). */
export function diagnostic(
  code: DiagnosticCode,
  severity: Severity,
  message: string,
  where: { path?: string | undefined; field?: string | undefined; hint?: string | undefined } = {},
): Diagnostic {
  const result: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = { code, severity, message };
  if (where.path !== undefined) result.path = where.path;
  if (where.field !== undefined) result.field = where.field;
  if (where.hint !== undefined) result.hint = where.hint;
  return result;
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((item) => item.severity === "error");
}
