import type { ApprovalQueue } from "../policy/approval-queue.js";
import type { ApprovalRequest } from "../policy/approvals.js";
import type { EditPlan, EditPlanOptions } from "../store/edits/index.js";
import { type AppliedPlan, applyEditPlan, rejectEditPlan } from "../store/edits/index.js";
import type { Store } from "../store/store.js";

/**
 * The owner's answer to an edit plan given in the store (`skillgate store approve PLAN` /
 * `store reject PLAN`) also answers the approval request that asked about it: an
 * `edit_skill` call that waited in the approval queue names the plan as its `reference`.
 * Settling it takes it off `skillgate approvals`, and `skillgate approve ID` on it is then
 * refused with `approval_settled` (docs/approvals.md), so the edit cannot be approved twice.
 */

/** What the owner's answer to a plan settled besides the plan: the waiting requests that asked about it. */
export interface SettledApprovals {
  readonly settled: readonly ApprovalRequest[];
}

/** Applies an edit plan as the owner, then settles the approval requests that asked about it. */
export async function applyEditPlanSettling(
  store: Store,
  approvals: ApprovalQueue,
  id: string,
  options: EditPlanOptions = {},
): Promise<AppliedPlan & SettledApprovals> {
  const applied = await applyEditPlan(store, id, options);
  return { ...applied, settled: approvals.settle(applied.plan.id, "applied") };
}

/** Rejects an edit plan, then settles the approval requests that asked about it. */
export async function rejectEditPlanSettling(
  store: Store,
  approvals: ApprovalQueue,
  id: string,
  options: EditPlanOptions = {},
): Promise<{ readonly plan: EditPlan } & SettledApprovals> {
  const plan = await rejectEditPlan(store, id, options);
  return { plan, settled: approvals.settle(plan.id, "rejected") };
}
