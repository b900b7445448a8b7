import type { Diagnostic, DiagnosticCode, Severity } from "../core/diagnostics.js";
import type { Skill } from "../skill/skill.js";

/**
 * Discovery is not authorisation: every skill found gets exactly one decision.
 * - `registered`: offered to models.
 * - `display_only`: shown to people (list, explain) but not offered (hidden by configuration, invalid governance).
 * - `disabled`: turned off by configuration.
 * - `shadowed`: a skill of the same name from a later source won.
 * - `rejected`: could not be loaded, or is not allowed (a folder outside its root).
 */
export type DecisionKind = "registered" | "rejected" | "display_only" | "disabled" | "shadowed";

/** Every decision kind, in the order reports list them. */
export const DECISION_KINDS: readonly DecisionKind[] = [
  "registered",
  "display_only",
  "disabled",
  "shadowed",
  "rejected",
];

/** Stable reason codes a decision carries. */
export type ReasonCode =
  | "invalid_front_matter"
  | "missing_description"
  | "invalid_name"
  | "name_mismatch"
  | "name_too_long"
  | "description_too_long"
  | "invalid_field"
  | "unknown_field"
  | "invalid_metadata"
  | "invalid_allowed_tools"
  | "invalid_governance"
  | "path_not_allowed"
  | "symlink_not_allowed"
  | "file_too_large"
  | "binary_content"
  | "unreadable_file"
  | "shadowed_by"
  | "disabled_by_config"
  | "disabled_in_store"
  | "hidden_by_config"
  | "limit_exceeded";

/** One reason behind a decision. */
export interface DecisionReason {
  readonly code: ReasonCode;
  readonly severity: Severity | "info";
  readonly message: string;
  /** For `shadowed_by`: the skill that won. */
  readonly winner?: { readonly source: string; readonly location: string };
}

/** The decision about one skill found by discovery. */
export interface SkillDecision {
  /** The skill's name, or its folder name when it could not be read. */
  readonly name: string;
  readonly source: string;
  /** The SKILL.md a person can open. */
  readonly location: string;
  readonly decision: DecisionKind;
  readonly reasons: readonly DecisionReason[];
  readonly diagnostics: readonly Diagnostic[];
  /** The loaded skill, for every decision but `rejected`. */
  readonly skill: Skill | undefined;
}

/** The reason code a diagnostic stands for in a decision. */
export function reasonCodeFor(code: DiagnosticCode): ReasonCode {
  switch (code) {
    case "front_matter_too_large":
    case "unterminated_front_matter":
    case "missing_front_matter":
    case "yaml_alias_limit":
    case "duplicate_key":
    case "front_matter_not_mapping":
      return "invalid_front_matter";
    case "invalid_parameters_schema":
      return "invalid_governance";
    case "missing_name":
      return "invalid_name";
    case "missing_skill_file":
    case "not_found":
      return "unreadable_file";
    case "shadowed":
      return "shadowed_by";
    case "invalid_script_metadata":
    case "invalid_requirement":
    case "invalid_package_json":
    case "package_lock_missing":
      return "invalid_metadata";
    default:
      return code;
  }
}

/** Reasons from diagnostics, one per diagnostic, with the diagnostic's severity. */
export function reasonsFrom(diagnostics: readonly Diagnostic[]): DecisionReason[] {
  return diagnostics.map((item) => ({
    code: reasonCodeFor(item.code),
    severity: item.severity,
    message: item.message,
  }));
}
