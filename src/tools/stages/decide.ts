import type { GrantScope, GrantStore } from "../../policy/grants.js";
import { grant as grantKey } from "../../skill/content-hash.js";
import { denialText } from "../call-texts.js";
import { type CallStage, end, next } from "./call-state.js";

/**
 * Stage 3, decide: the rule table decides on the subject (the first matching rule by
 * priority; anything not covered is denied). A subject naming a skill and its hash carries
 * the grant `skill:NAME@HASH8` that an "always" answer stores. Recorded as `policy-decided`;
 * a deny ends the call.
 */
export const decideStage: CallStage = async (state, context) => {
  const { subject, scope } = state;
  const grant =
    subject.skill !== undefined && subject.hash !== undefined
      ? grantKey(subject.skill, subject.hash)
      : undefined;
  const decision = context.policy().decide(
    {
      tool: state.tool.name,
      tier: subject.tier,
      mode: scope.mode,
      ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
      ...(grant !== undefined ? { grant } : {}),
      ...(subject.skillRunnable !== undefined ? { skillRunnable: subject.skillRunnable } : {}),
      ...(subject.draftTargetLocked !== undefined ? { draftTargetLocked: subject.draftTargetLocked } : {}),
    },
    lazyGrants(context.grants, scope),
  );
  context.record("policy-decided", subject, { rule: decision.rule, decision: decision.effect });
  const decided = { ...state, decision, ...(grant !== undefined ? { grant } : {}) };
  if (decision.effect === "deny")
    return end(decided, { text: denialText(decision, subject), status: "denied", decision });
  return next(decided);
};

/**
 * The policy's context with the scope's grants read only when a rule asks for them (only
 * change and destructive calls can be allowed by a grant): a read costs no grants query.
 */
export function lazyGrants(store: GrantStore, scope: GrantScope): { readonly grants: ReadonlySet<string> } {
  let grants: ReadonlySet<string> | undefined;
  return {
    get grants() {
      grants ??= store.grants(scope);
      return grants;
    },
  };
}
