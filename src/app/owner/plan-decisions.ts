import { SkillgateError } from "../../core/errors.js";
import type { ApprovalQueue, ApprovalQueueResult, OwnerAnswer } from "../../policy/approval-queue.js";
import type { ApprovalRequest } from "../../policy/approvals.js";
import type { AppliedPlan, EditPlan, EditPlanOptions } from "../../store/edits/index.js";
import { getPlan, rejectEditPlan } from "../../store/edits/index.js";
import { isStoreError } from "../../store/errors.js";
import type { Store } from "../../store/store.js";
import { applyEditPlanSettling, rejectEditPlanSettling } from "../../tools/edit-plan-approvals.js";
import type { Authoring } from "../authoring.js";

/**
 * The owner's decisions on what the assistant asked for, the same from every surface (the
 * CLI's `store approve|reject`, `approve|decline`, and the HTTP API): an edit plan applied
 * or rejected, and an approval request answered. Each keeps the plan and the requests that
 * asked about it in agreement (docs/approvals.md, "Edits: answering the plan or the request").
 */

/** What a decision works on. */
export interface OwnerDecisions {
  /** Opened only when a decision needs it (answering a request that names no plan never does). */
  readonly store: () => Promise<Store>;
  readonly approvals: ApprovalQueue;
  /** Told of an applied edit (notifications, live events); none for a surface that reports nothing. */
  readonly authoring?: Authoring;
  readonly planOptions?: EditPlanOptions;
}

/** An applied plan and the waiting requests its answer settled. */
export interface PlanApproved extends AppliedPlan {
  readonly settled: readonly ApprovalRequest[];
  /** The notification's delivery; awaited by a command about to exit. */
  readonly reported: Promise<unknown>;
}

/** A rejected plan and the waiting requests its answer settled. */
export interface PlanRejected {
  readonly plan: EditPlan;
  readonly settled: readonly ApprovalRequest[];
}

/** An answered request, and what it did to an edit plan it named. */
export interface ApprovalAnswered extends ApprovalQueueResult {
  /** A decline of an edit's request removes its plan: nobody will approve it. */
  readonly rejectedPlan?: string;
  /** Other requests that asked about the same plan, settled as rejected with it. */
  readonly settled: readonly ApprovalRequest[];
}

/**
 * Applies edit plan `id` exactly as stored, if the skill still has the plan's base hash
 * (`skill_changed` otherwise), settles the requests that asked about it, and reports the
 * edit. Refusals: `plan_not_found`, `plan_expired`, `skill_changed`, `store_busy`, and the
 * store's own for content.
 */
export async function approvePlan(decisions: OwnerDecisions, id: string): Promise<PlanApproved> {
  const applied = await applyEditPlanSettling(
    await decisions.store(),
    decisions.approvals,
    id,
    decisions.planOptions,
  );
  const reported =
    decisions.authoring?.report({
      kind: "edit-applied",
      skill: applied.plan.skill,
      hash: applied.result.hash,
      plan: applied.plan.id,
    }) ?? Promise.resolve([]);
  return { ...applied, reported };
}

/** Rejects edit plan `id` (it can never be applied) and settles the requests that asked about it. */
export async function rejectPlan(decisions: OwnerDecisions, id: string): Promise<PlanRejected> {
  return rejectEditPlanSettling(await decisions.store(), decisions.approvals, id, decisions.planOptions);
}

/**
 * Answers approval request `id` (the queue's refusals: `approval_not_found`,
 * `approval_expired`, `approval_already_answered`, `approval_settled`,
 * `approval_answer_not_offered`, `invalid_argument`). A decline of an `edit_skill` request
 * also removes the plan it named, since nobody will approve it, and settles any other
 * request about that plan; the declined request keeps its answer, so the model's retry is
 * told the owner declined.
 */
export async function answerApproval(
  decisions: OwnerDecisions,
  id: string,
  answer: OwnerAnswer,
): Promise<ApprovalAnswered> {
  const result = decisions.approvals.answer(id, answer);
  const reference = result.request.reference;
  if (answer !== "decline" || result.request.tool !== "edit_skill" || reference === undefined)
    return { ...result, settled: [] };
  let rejectedPlan: string | undefined;
  try {
    rejectedPlan = (await rejectEditPlan(await decisions.store(), reference, decisions.planOptions)).id;
  } catch (error) {
    // Already gone (applied, rejected, expired): the decline stands on its own.
    if (!isStoreError(error, "plan_not_found") && !isStoreError(error, "plan_expired")) throw error;
  }
  const settled = decisions.approvals.settle(reference, "rejected", { except: [id] });
  return { ...result, ...(rejectedPlan !== undefined ? { rejectedPlan } : {}), settled };
}

/**
 * Refuses with `skill_changed` (409) unless `hash` is plan `id`'s `resultHash`: the owner
 * approves or rejects the plan they read, named by the content it gives, so a client that
 * shows one plan cannot decide another by a mistyped or stale id. Also `plan_not_found`,
 * `plan_expired`.
 */
export async function checkPlanHash(decisions: OwnerDecisions, id: string, hash: string): Promise<EditPlan> {
  const plan = await getPlan(await decisions.store(), id, decisions.planOptions);
  if (plan.resultHash !== hash)
    throw new SkillgateError(
      "skill_changed",
      `edit plan ${id} gives ${plan.skill} the hash ${plan.resultHash.slice(0, 8)}, not the reviewed ${hash.slice(0, 8)}; read the plan again`,
      { name: plan.skill, plan: id, expected: hash, actual: plan.resultHash },
    );
  return plan;
}
