import { apiRequest, segment } from "./client.js";
import { listIn } from "./lists.js";
import type { ApprovalRequest, ChangeResult, PlanDetail, ReviewQueue } from "./types.js";

/** Drafts and plans waiting, and the Needs review count (`GET /api/review`). */
export async function getReview(): Promise<ReviewQueue> {
  const answer = await apiRequest<Partial<ReviewQueue>>("/review");
  return {
    needsReview: typeof answer.needsReview === "number" ? answer.needsReview : 0,
    drafts: listIn(answer, "drafts"),
    plans: listIn(answer, "plans"),
  };
}

/** One edit plan with its diff (`GET /api/plans/:id`). */
export function getPlan(id: string): Promise<PlanDetail> {
  return apiRequest(`/plans/${segment(id)}`);
}

/** Applies a plan, only if the skill still has the plan's base hash. */
export function approvePlan(id: string, hash: string): Promise<ChangeResult> {
  return apiRequest(`/plans/${segment(id)}/approve`, { method: "POST", json: { hash } });
}

/** Rejects a plan. */
export function rejectPlan(id: string, hash: string): Promise<void> {
  return apiRequest(`/plans/${segment(id)}/reject`, { method: "POST", json: { hash } });
}

/** The asks tool calls are waiting on (`GET /api/approvals`). */
export async function listApprovals(): Promise<ApprovalRequest[]> {
  return listIn<ApprovalRequest>(await apiRequest("/approvals"), "approvals");
}

/** Approves an ask once, or always for its chat. Answered exactly once across processes. */
export function approveAsk(id: string, always: boolean): Promise<unknown> {
  return apiRequest(`/approvals/${segment(id)}/approve`, { method: "POST", json: { always } });
}

/** Declines an ask. */
export function declineAsk(id: string): Promise<unknown> {
  return apiRequest(`/approvals/${segment(id)}/decline`, { method: "POST", json: {} });
}
