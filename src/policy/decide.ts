import {
  BUILTIN_RULES,
  type PolicyCall,
  type PolicyContext,
  type PolicyEffect,
  type PolicyRule,
} from "./rules.js";

/** The rule name recorded when no rule matched. */
export const DEFAULT_DENY_RULE = "default-deny";

/** The outcome of the policy for one call, naming the rule that decided. */
export interface PolicyDecision {
  readonly effect: PolicyEffect;
  readonly rule: string;
  readonly priority: number | undefined;
  readonly description: string;
}

/**
 * An ordered rule table: rules sorted by priority, highest first; among equal priorities
 * deny before ask before allow (the safer reading), then table order.
 */
export class PolicyTable {
  readonly rules: readonly PolicyRule[];

  constructor(rules: readonly PolicyRule[] = BUILTIN_RULES) {
    const strictness: Record<PolicyEffect, number> = { deny: 0, ask: 1, allow: 2 };
    this.rules = rules
      .map((rule, index) => ({ rule, index }))
      .sort(
        (left, right) =>
          right.rule.priority - left.rule.priority ||
          strictness[left.rule.effect] - strictness[right.rule.effect] ||
          left.index - right.index,
      )
      .map((entry) => entry.rule);
  }

  /** The built-in rules plus an owner's rules. */
  static withOwnerRules(ownerRules: readonly PolicyRule[]): PolicyTable {
    return new PolicyTable([...BUILTIN_RULES, ...ownerRules]);
  }

  /** The first matching rule decides; no match denies. */
  decide(call: PolicyCall, context: PolicyContext): PolicyDecision {
    for (const rule of this.rules) {
      if (rule.matches(call, context)) {
        return {
          effect: rule.effect,
          rule: rule.name,
          priority: rule.priority,
          description: rule.description,
        };
      }
    }
    return {
      effect: "deny",
      rule: DEFAULT_DENY_RULE,
      priority: undefined,
      description: "no rule covers this call",
    };
  }
}

/**
 * Combines the table's decision with a narrower opinion (a hook, an extension's approval
 * policy): it can turn allow into ask or deny, or ask into deny, never the reverse.
 */
export function narrow(decision: PolicyEffect, opinion: PolicyEffect | undefined): PolicyEffect {
  if (opinion === undefined) return decision;
  const order: Record<PolicyEffect, number> = { allow: 0, ask: 1, deny: 2 };
  return order[opinion] > order[decision] ? opinion : decision;
}
