/**
 * Edits with approval plans (docs/drafts-and-edits.md, "Edits"): the assistant proposes, the
 * owner reads a diff and decides, and exactly that plan is written.
 */

export {
  EDIT_ARGUMENT_SPEC,
  type EditArguments,
  MAX_EDIT_DESCRIPTION_LENGTH,
  MAX_EDIT_REASON_LENGTH,
  readEditArguments,
} from "./edit-arguments.js";
export { type EditPlanOptions, planEdit } from "./edit-plan.js";
export type { EditChanges, EditPlan, EditPlanSummary } from "./edit-plan-types.js";
export { editFrontMatter, type FrontMatterChanges } from "./front-matter-edit.js";
export { MAX_DIFF_FILE_BYTES, MAX_DIFF_TOTAL_BYTES } from "./plan-diff.js";
export {
  MAX_PLANS,
  PLAN_LIFETIME_MS,
  PLANS_FOLDER,
  PlanExpiredError,
  PlanNotFoundError,
  TooManyPlansError,
} from "./plan-files.js";
export { type AppliedPlan, applyEditPlan, diffPlan, getPlan, listPlans, rejectEditPlan } from "./plans.js";
export { InvalidToolArgumentsError } from "./strict-arguments.js";
