import { narrowByHooks } from "../call-hooks.js";
import { narrowedDenialText } from "../call-texts.js";
import type { CallSubject } from "../tool.js";
import { type CallStage, end, next, requireDecision, scopeOf } from "./call-state.js";

/** The rule named when a subject's {@link CallSubject.mustAsk} turned an allow into an ask. */
export const MUST_ASK_RULE = "package-environment-build";

/**
 * Stage 4, narrow: the hooks' verdict and the extensions' approval policy may turn the
 * rules' allow into ask or deny, and ask into deny, never the reverse (`narrowByHooks`).
 * A change is recorded as `policy-narrowed`; a deny ends the call. Runs after the decide
 * stage, which sets the decision. A subject that must be asked (a package environment is
 * built first) turns a remaining allow into an ask.
 */
export const narrowStage: CallStage = async (state, context) => {
  const decision = requireDecision(state);
  const { subject } = state;
  const hooked = await narrowByHooks(decision, state.verdict, context.hooks, {
    tool: state.tool.name,
    tier: subject.tier,
    args: state.args,
    scope: scopeOf(state.scope),
    ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
  });
  const narrowed =
    hooked.effect === "allow" && subject.mustAsk !== undefined
      ? { effect: "ask" as const, rule: MUST_ASK_RULE, priority: undefined, description: subject.mustAsk }
      : hooked;
  if (narrowed !== decision)
    context.record("policy-narrowed", subject, { rule: narrowed.rule, decision: narrowed.effect });
  const current = { ...state, narrowed };
  if (narrowed.effect === "deny")
    return end(current, { text: narrowedDenialText(narrowed), status: "denied", decision: narrowed });
  return next(current);
};
