import { systemClock } from "../../core/clock.js";
import type { Store } from "../store.js";
import type { ChangeResult } from "../store-types.js";
import { type EditPlanOptions, planFiles } from "./edit-plan.js";
import type { EditPlan, EditPlanSummary } from "./edit-plan-types.js";

/**
 * What the owner does with edit plans: list them, read one and its diff, approve (apply)
 * or reject. A plan is applied exactly as stored; nothing is read from the model again.
 */

/** The outcome of {@link applyEditPlan}: the plan that was written and the store's result. */
export interface AppliedPlan {
  readonly plan: EditPlan;
  readonly result: ChangeResult;
}

/** Every plan waiting for the owner, oldest first (expired ones are left out). */
export async function listPlans(store: Store, options: EditPlanOptions = {}): Promise<EditPlanSummary[]> {
  const plans = await planFiles(store, options).list((options.clock ?? systemClock).now());
  return plans.map(summarise);
}

/** One plan, whole; `plan_not_found` or `plan_expired`. */
export async function getPlan(store: Store, id: string, options: EditPlanOptions = {}): Promise<EditPlan> {
  return planFiles(store, options).get(id, (options.clock ?? systemClock).now());
}

/** A plan's unified diff: what the owner approves. */
export async function diffPlan(store: Store, id: string, options: EditPlanOptions = {}): Promise<string> {
  return (await getPlan(store, id, options)).diff;
}

/**
 * Applies an approved plan: writes exactly its changes, as the owner, only if the skill
 * still has the hash the plan was made against (`skill_changed`, 409, otherwise, and
 * nothing is written). The owner's approval counts as an owner's write: an assistant's
 * draft is locked by it. The plan is used once: it is removed when applied, and when
 * applying it was refused for a reason that would not go away.
 */
export async function applyEditPlan(
  store: Store,
  id: string,
  options: EditPlanOptions = {},
): Promise<AppliedPlan> {
  return planFiles(store, options).take(id, (options.clock ?? systemClock).now(), async (plan) => {
    const result = await store.updateFiles(
      plan.skill,
      { write: plan.changes.write, remove: plan.changes.remove },
      { expectedHash: plan.baseHash, author: "owner" },
    );
    return { plan, result };
  });
}

/** Rejects a plan: it is removed and can never be applied. */
export async function rejectEditPlan(
  store: Store,
  id: string,
  options: EditPlanOptions = {},
): Promise<EditPlan> {
  return planFiles(store, options).remove(id);
}

function summarise(plan: EditPlan): EditPlanSummary {
  return {
    id: plan.id,
    skill: plan.skill,
    baseHash: plan.baseHash,
    resultHash: plan.resultHash,
    reason: plan.request.reason,
    createdAt: plan.createdAt,
    expiresAt: plan.expiresAt,
    writes: Object.keys(plan.changes.write),
    removes: plan.changes.remove,
    diffTruncated: plan.diffTruncated,
    warnings: plan.warnings.length,
  };
}
