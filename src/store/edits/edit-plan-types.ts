import type { LintWarning } from "../lint/lint-types.js";
import type { EditArguments } from "./edit-arguments.js";

/** Exactly what applying a plan writes: whole text files and removals, as one store change. */
export interface EditChanges {
  /** Files created or replaced, path → full content (SKILL.md with the new settings applied). */
  readonly write: Readonly<Record<string, string>>;
  /** Files removed. */
  readonly remove: readonly string[];
}

/**
 * An edit the owner is asked to approve (docs/drafts-and-edits.md, "Edits"): made once from one
 * reading of the `edit_skill` arguments, shown as {@link EditPlan.diff}, and written as
 * {@link EditPlan.changes} on approval, only if the skill still has {@link EditPlan.baseHash}.
 */
export interface EditPlan {
  /** 32 hex digits. */
  readonly id: string;
  readonly skill: string;
  /** The skill's content hash the plan was made against. */
  readonly baseHash: string;
  /** The content hash the skill has once the plan is applied. */
  readonly resultHash: string;
  readonly changes: EditChanges;
  /** The arguments as read, for showing what was asked (the reason, the settings). */
  readonly request: EditArguments;
  /** ISO times. */
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The unified diff of {@link EditPlan.changes} against the skill at {@link EditPlan.baseHash}. */
  readonly diff: string;
  /** True when the diff was cut at 32 KiB a file or 192 KiB in all; the diff says where. */
  readonly diffTruncated: boolean;
  /** Review lint of the skill as it would be after the plan. */
  readonly warnings: readonly LintWarning[];
}

/** A plan as listed: everything but file contents and the diff. */
export interface EditPlanSummary {
  readonly id: string;
  readonly skill: string;
  readonly baseHash: string;
  readonly resultHash: string;
  readonly reason: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly writes: readonly string[];
  readonly removes: readonly string[];
  readonly diffTruncated: boolean;
  readonly warnings: number;
}
