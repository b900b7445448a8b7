import { type ErrorCode, SkillgateError } from "../core/errors.js";
import type { SettledOutcome } from "./approval-queue-shape.js";
import type { ApprovalAnswer } from "./approvals.js";

/** The codes the approval queue refuses with; each is documented in docs/approvals.md. */
export type ApprovalQueueErrorCode = Extract<
  ErrorCode,
  | "approval_not_found"
  | "approval_expired"
  | "approval_answer_not_offered"
  | "approval_already_answered"
  | "approval_settled"
  | "approval_queue_full"
>;

/**
 * The base of every approval-queue refusal. Nothing in the queue changed when one of these
 * is thrown.
 */
export class ApprovalQueueError<Data extends object = Record<string, unknown>> extends SkillgateError<Data> {
  declare readonly code: ApprovalQueueErrorCode;

  constructor(code: ApprovalQueueErrorCode, message: string, data: Data, options?: { cause?: unknown }) {
    super(code, message, data, options);
  }
}

/** No waiting request has that id (it never existed, was answered and used, or is unreadable). */
export class ApprovalNotFoundError extends ApprovalQueueError<{ id: string }> {
  constructor(id: string) {
    super("approval_not_found", `no approval request ${id} is waiting`, { id });
  }
}

/** The request's own expiry time has passed; it can no longer be answered or used. */
export class ApprovalExpiredError extends ApprovalQueueError<{ id: string; expiresAt: number }> {
  constructor(id: string, expiresAt: number) {
    super(
      "approval_expired",
      `approval request ${id} expired at ${new Date(expiresAt).toISOString()}; the model must ask again`,
      { id, expiresAt },
    );
  }
}

/** The answer is not among the request's options (`edit_skill`, or a call without a grant, has no "always"). */
export class ApprovalAnswerNotOfferedError extends ApprovalQueueError<{
  id: string;
  answer: string;
  options: ApprovalAnswer[];
}> {
  constructor(id: string, answer: string, options: readonly ApprovalAnswer[]) {
    super(
      "approval_answer_not_offered",
      `approval request ${id} does not offer "${answer}"; it offers ${options.join(", ")}`,
      { id, answer, options: [...options] },
    );
  }
}

/** The request already has an answer: each request is answered once. */
export class ApprovalAlreadyAnsweredError extends ApprovalQueueError<{ id: string }> {
  constructor(id: string) {
    super("approval_already_answered", `approval request ${id} has already been answered`, { id });
  }
}

/**
 * What the request asked about was settled another way: its edit plan was applied
 * (`skillgate store approve PLAN`) or rejected. Nothing is left to approve.
 */
export class ApprovalSettledError extends ApprovalQueueError<{
  id: string;
  reference: string;
  outcome: SettledOutcome;
}> {
  constructor(id: string, reference: string, outcome: SettledOutcome) {
    super(
      "approval_settled",
      `approval request ${id} is settled: its edit plan ${reference} was already ${outcome}; there is nothing left to approve`,
      { id, reference, outcome },
    );
  }
}

/** The queue already holds {@link MAX_QUEUED_APPROVALS} unexpired requests. */
export class ApprovalQueueFullError extends ApprovalQueueError<{ count: number; limit: number }> {
  constructor(count: number, limit: number) {
    super(
      "approval_queue_full",
      `the approval queue holds ${count} requests; the limit is ${limit} (answer or let some expire)`,
      { count, limit },
    );
  }
}
