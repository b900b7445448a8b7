import { canonicalJson, sha256Hex } from "../../core/hashing.js";
import { type ApprovalAnswer, type ApprovalRequest, approvalArgumentsText } from "../../policy/approvals.js";
import { awaitingText, declinedText, errorKind, expiredText, hostText } from "../call-texts.js";
import type { ApprovalDetail } from "../tool.js";
import {
  type CallContext,
  type CallStage,
  type CallState,
  end,
  next,
  requireDecision,
  scopeOf,
} from "./call-state.js";
import type { RetryFrom } from "./call-types.js";

/** What asking a person came to: an answer, `expired`, or deferred to a waiting request. */
export type AskOutcome =
  | ApprovalAnswer
  | "expired"
  | {
      readonly deferred: string;
      readonly retryFrom?: RetryFrom;
      /** The call waits on an earlier request, not the one just opened. */
      readonly earlier?: true;
    };

/**
 * Stage 5, ask: when the (narrowed) decision is ask, a person is asked. The subject first
 * makes what exactly is approved (an edit plan and its diff); a failure there refuses the
 * call, and what it made is discarded again when nobody will approve it (a decline, an
 * expiry, a wait on an earlier request). An "always" answer stores the grant for the scope;
 * a decline, an expiry or a deferral ends the call without running it. Any other decision
 * passes through.
 */
export const askStage: CallStage = async (state, context) => {
  const decision = requireDecision(state);
  if (state.narrowed?.effect !== "ask") return next(state);
  // The digest is of the input as prepare made it, taken before the approval's detail is made
  // (edit_skill keeps its plan beside its input): a retry of the same call has the same digest.
  const inputDigest = sha256Hex(canonicalJson(state.input ?? null));
  let approval: ApprovalDetail | undefined;
  try {
    approval = await state.subject.prepareApproval?.();
  } catch (error) {
    return end(state, { text: hostText(error), status: "refused", decision, errorKind: errorKind(error) });
  }
  const answer = await askPerson(state, context, {
    inputDigest,
    ...(approval !== undefined ? { approval } : {}),
  });
  if (answer === "decline" || answer === "expired" || (typeof answer === "object" && answer.earlier))
    await discard(approval);
  if (typeof answer === "object")
    return end(state, {
      text: awaitingText(answer.deferred, answer.retryFrom ?? "same-chat"),
      status: "awaiting_approval",
      decision,
      approvalId: answer.deferred,
    });
  if (answer === "expired") return end(state, { text: expiredText(), status: "expired", decision });
  if (answer === "decline") return end(state, { text: declinedText(), status: "declined", decision });
  if ((answer === "always-chat" || answer === "always-job") && state.grant !== undefined)
    context.grants.addGrant(state.scope, state.grant);
  return next(state);
};

/**
 * Opens the approval request, tells the `approval` hooks, waits for the approver (at most
 * the request's life) and records the answer. An approver that fails, an answer that was not
 * offered (say "always" for `edit_skill`) and no approver at all are each a decline.
 */
export async function askPerson(
  state: CallState,
  context: CallContext,
  asked: { readonly inputDigest: string; readonly approval?: ApprovalDetail },
): Promise<AskOutcome> {
  const { inputDigest, approval } = asked;
  const { subject, scope, grant } = state;
  const hash = subject.hash ?? approval?.hash;
  const request = context.approvals.open({
    tool: state.tool.name,
    tier: subject.tier,
    scope: scopeOf(scope),
    summary: subject.summary,
    ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
    ...(hash !== undefined ? { hash } : {}),
    ...(grant !== undefined ? { grant } : {}),
    ...(approval !== undefined ? { detail: approval.detail, reference: approval.reference } : {}),
    inputDigest,
    ...(state.narrowed !== undefined ? { rule: state.narrowed.rule } : {}),
    arguments: approvalArgumentsText(state.args),
  });
  context.record("approval-requested", subject);
  await context.hooks?.approvalAsked({ scope: scopeOf(scope), request });
  let answer: ApprovalAnswer | "expired" | "invalid";
  try {
    const given = context.approve
      ? await withDeadline(context.approve(request, state.options), request.expiresAt - request.createdAt)
      : "decline";
    if (given === "deferred" || typeof given === "object") {
      context.record("approval-answered", subject, { answer: "deferred" });
      await context.hooks?.approvalAsked({ scope: scopeOf(scope), request, answer: "deferred" });
      return deferredTo(request, given);
    }
    answer = given === "expired" ? "expired" : context.approvals.answer(request.id, given);
  } catch {
    answer = "decline";
  }
  const final = answer === "invalid" ? "decline" : answer;
  context.record("approval-answered", subject, { answer: final });
  await context.hooks?.approvalAsked({ scope: scopeOf(scope), request, answer: final });
  return final;
}

/** The request a deferred call waits on (the approver's, or the one just opened) and where to retry. */
function deferredTo(
  request: ApprovalRequest,
  given: "deferred" | { readonly deferred?: string; readonly retryFrom?: RetryFrom },
): { deferred: string; retryFrom?: RetryFrom; earlier?: true } {
  if (given === "deferred") return { deferred: request.id };
  const earlier = given.deferred !== undefined && given.deferred !== request.id;
  return {
    deferred: given.deferred ?? request.id,
    ...(given.retryFrom !== undefined ? { retryFrom: given.retryFrom } : {}),
    ...(earlier ? { earlier: true as const } : {}),
  };
}

/** Throws away an approval's detail nobody will approve; a failure leaves it to expire on its own. */
async function discard(approval: ApprovalDetail | undefined): Promise<void> {
  try {
    await approval?.discard?.();
  } catch {
    // An edit plan that could not be removed now expires with its lifetime (docs/drafts-and-edits.md).
  }
}

/** The approver's answer, or `expired` once the request's life has run out in real time. */
export async function withDeadline<Answer>(
  answer: Promise<Answer>,
  lifeMs: number,
): Promise<Answer | "expired"> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), Math.max(0, lifeMs));
    timer.unref();
  });
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
