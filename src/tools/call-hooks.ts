import type { AfterToolEvent, ApprovalEvent, BeforeToolEvent } from "../extensions/events.js";
import type { ApprovalCall } from "../extensions/types.js";
import { narrow, type PolicyDecision } from "../policy/decide.js";
import type { PolicyEffect } from "../policy/rules.js";
import { HOOK_REASONS } from "./call-texts.js";

/** What the `before_tool` hooks said about a call, folded into one verdict. */
export interface BeforeToolVerdict {
  /** Why a hook denied the call; several reasons are joined. */
  readonly deny?: string;
  /** Why a hook wants a person to approve the call first. */
  readonly ask?: string;
  /** Replacement arguments (the last hook that gave some wins); they are prepared again. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/**
 * The broker's view of extensions and shell hooks. Every opinion they give can only narrow
 * the rules' decision (`narrow` in src/policy/decide.ts): a deny stays a deny, an ask
 * still asks a person.
 */
export interface CallHooks {
  /** Runs the `before_tool` hooks. */
  beforeTool(event: BeforeToolEvent): Promise<BeforeToolVerdict>;
  /** Runs the `after_tool` hooks; a string replaces the result text. */
  afterTool(event: AfterToolEvent): Promise<string | undefined>;
  /** The approval policy's opinion, `undefined` when there is none or it approves. */
  approvalPolicy(call: ApprovalCall): Promise<{ effect: PolicyEffect; reason: string } | undefined>;
  /** Tells the `approval` hooks a person is asked, and later what they answered. */
  approvalAsked(event: ApprovalEvent): Promise<void>;
}

/** The rule name recorded when a `before_tool` hook narrowed a decision. */
export const HOOK_RULE = "before-tool-hook";
/** The rule name recorded when an extension's approval policy narrowed a decision. */
export const APPROVAL_POLICY_RULE = "approval-policy";

/**
 * The rules' decision narrowed by the `before_tool` hooks' verdict and the approval policy:
 * they may turn allow into ask or deny and ask into deny, never the reverse (`narrow`).
 * Returns `decision` itself when nothing narrowed it. A deny from the rules is returned
 * without asking the policy.
 */
export async function narrowByHooks(
  decision: PolicyDecision,
  verdict: BeforeToolVerdict,
  hooks: CallHooks | undefined,
  call: ApprovalCall,
): Promise<PolicyDecision> {
  if (hooks === undefined || decision.effect === "deny") return decision;
  let current = decision;
  const consider = (effect: PolicyEffect, rule: string, reason: string): void => {
    if (narrow(current.effect, effect) !== current.effect)
      current = { effect, rule, priority: undefined, description: reason };
  };
  if (verdict.deny !== undefined) consider("deny", HOOK_RULE, HOOK_REASONS.beforeTool(verdict.deny));
  if (verdict.ask !== undefined) consider("ask", HOOK_RULE, HOOK_REASONS.beforeTool(verdict.ask));
  if (current.effect === "deny") return current;
  const opinion = await hooks.approvalPolicy(call);
  if (opinion !== undefined) consider(opinion.effect, APPROVAL_POLICY_RULE, opinion.reason);
  return current;
}
