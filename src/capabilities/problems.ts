import type { RegistrationReason } from "./types.js";

/**
 * Problems found in capability content (a manifest, a schema file, a skill's metadata),
 * returned as data, never thrown: the capability plane's counterpart of core's
 * `Diagnostic`, with its own codes. Each error problem names the {@link RegistrationReason}
 * it stands for, so a decision can say why without re-reading the problem.
 */

/** Stable codes of capability problems (docs/capabilities.md). */
export type CapabilityProblemCode =
  | "invalid_manifest"
  | "missing_field"
  | "invalid_field"
  | "unknown_field"
  | "yaml_alias_limit"
  | "file_too_large"
  | "unreadable_file"
  | "invalid_schema"
  | "capability_missing_schema"
  | "path_not_allowed"
  | "path_missing"
  | "trust_level_unknown"
  | "trust_ceiling_narrowed"
  | "policy_denied"
  | "skill_not_found"
  | "skill_not_registered"
  | "shadowed_by_precedence"
  | "invalid_capability_name"
  | "no_capabilities";

/** One problem, located as precisely as skillgate can. */
export interface CapabilityProblem {
  readonly code: CapabilityProblemCode;
  /** An `error` decides the descriptor's fate; a `warning` is shown and changes nothing. */
  readonly severity: "error" | "warning";
  readonly message: string;
  /** The registration reason an error stands for (absent for warnings). */
  readonly reason?: RegistrationReason;
  /** The file the problem is in. */
  readonly path?: string;
  /** The manifest field (`skill.output_schema`, `permissions.network`). */
  readonly field?: string;
}

/** Builds a problem without undefined-valued optional keys (exactOptionalPropertyTypes). */
export function problem(
  code: CapabilityProblemCode,
  severity: "error" | "warning",
  message: string,
  where: {
    reason?: RegistrationReason | undefined;
    path?: string | undefined;
    field?: string | undefined;
  } = {},
): CapabilityProblem {
  const result: { -readonly [Key in keyof CapabilityProblem]: CapabilityProblem[Key] } = {
    code,
    severity,
    message,
  };
  const reason = where.reason ?? (severity === "error" ? defaultReason(code) : undefined);
  if (reason !== undefined) result.reason = reason;
  if (where.path !== undefined) result.path = where.path;
  if (where.field !== undefined) result.field = where.field;
  return result;
}

/** The reason an error of each code stands for when the caller names none. */
function defaultReason(code: CapabilityProblemCode): RegistrationReason {
  switch (code) {
    case "capability_missing_schema":
    case "path_not_allowed":
    case "trust_level_unknown":
    case "policy_denied":
    case "skill_not_found":
    case "skill_not_registered":
    case "shadowed_by_precedence":
    case "invalid_capability_name":
    case "no_capabilities":
    case "invalid_schema":
      return code;
    default:
      return "invalid_manifest";
  }
}

/** True when any problem is an error. */
export function hasErrorProblems(problems: readonly CapabilityProblem[]): boolean {
  return problems.some((item) => item.severity === "error");
}
