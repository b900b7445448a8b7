import picomatch from "picomatch";
import type { ToolTier, TurnMode } from "./tiers.js";
import { SKILL_USE_TOOLS } from "./tiers.js";

/** What a rule does when it matches. */
export type PolicyEffect = "allow" | "ask" | "deny";

/** One tool call as the policy sees it. */
export interface PolicyCall {
  readonly tool: string;
  readonly tier: ToolTier;
  readonly mode: TurnMode;
  /** The skill the call names, when it names one that exists. */
  readonly skill?: string;
  /** `skill:<name>@<hash8>` for calls on a skill; `undefined` when the call names none. */
  readonly grant?: string;
  /** For skill tools: whether the skill is enabled and in scope this turn. */
  readonly skillRunnable?: boolean;
  /** For `draft_skill`: the target skill exists and is locked (owner-enabled or owner-edited). */
  readonly draftTargetLocked?: boolean;
}

/** What the policy knows besides the call: the grants held by the chat or job. */
export interface PolicyContext {
  readonly grants: ReadonlySet<string>;
}

/** A rule of the ordered table: the highest priority match decides. */
export interface PolicyRule {
  readonly name: string;
  readonly priority: number;
  readonly effect: PolicyEffect;
  /** Why the rule exists, shown in `policy` listings and in refusals. */
  readonly description: string;
  /** `builtin` for skillgate's rules, `config` for an owner's. */
  readonly origin: "builtin" | "config";
  matches(call: PolicyCall, context: PolicyContext): boolean;
}

function builtin(
  name: string,
  priority: number,
  effect: PolicyEffect,
  description: string,
  matches: PolicyRule["matches"],
): PolicyRule {
  return { name, priority, effect, description, origin: "builtin", matches };
}

/**
 * skillgate's built-in rules. The first six are the reference system's table; the rest
 * make the tier defaults explicit so that nothing is decided outside the table: reads
 * are allowed, changes and destructive calls ask unless the chat or job holds the grant,
 * and plan mode changes nothing. Anything no rule covers is denied.
 */
export const BUILTIN_RULES: readonly PolicyRule[] = [
  builtin(
    "disabled-skills-never-run",
    120,
    "deny",
    "load_skill, read_skill_resource, run_skill_script and read_skill are refused for a skill that is not runnable this turn",
    (call) => SKILL_USE_TOOLS.includes(call.tool) && call.skill !== undefined && call.skillRunnable === false,
  ),
  builtin(
    "drafts-never-touch-reviewed-skills",
    120,
    "deny",
    "draft_skill may not write a skill the owner has enabled or edited",
    (call) => call.tool === "draft_skill" && call.draftTargetLocked === true,
  ),
  builtin(
    "skill-edit-plan-mode",
    110,
    "deny",
    "edit_skill is refused in plan mode",
    (call) => call.tool === "edit_skill" && call.mode === "plan",
  ),
  builtin(
    "skill-edit-chats-only",
    109,
    "deny",
    "edit_skill is refused in a job",
    (call) => call.tool === "edit_skill" && call.mode === "job",
  ),
  builtin(
    "plan-mode-changes-nothing",
    105,
    "deny",
    "plan mode allows only reads",
    (call) => call.mode === "plan" && call.tier !== "read",
  ),
  builtin(
    "skill-edit-always-asks",
    97,
    "ask",
    "every edit_skill needs the owner's approval of its diff",
    (call) => call.tool === "edit_skill",
  ),
  builtin(
    "granted-calls-allowed",
    90,
    "allow",
    "a change or destructive call runs without asking when the chat or job holds its grant",
    (call, context) =>
      (call.tier === "change" || call.tier === "destructive") &&
      call.grant !== undefined &&
      context.grants.has(call.grant),
  ),
  builtin(
    "drafts-allowed",
    75,
    "allow",
    "draft-tier calls (draft_skill, mark_chats_reviewed) are allowed",
    (call) => call.tier === "draft",
  ),
  builtin("reads-allowed", 50, "allow", "read-tier calls are allowed", (call) => call.tier === "read"),
  builtin(
    "changes-ask",
    40,
    "ask",
    "a change-tier call asks the person first",
    (call) => call.tier === "change",
  ),
  builtin(
    "destructive-asks",
    40,
    "ask",
    "a destructive call asks the person first, with a warning",
    (call) => call.tier === "destructive",
  ),
];

/** An owner's rule as written in configuration: globs on tool and skill, exact tier and mode. */
export interface ConfiguredRule {
  readonly name: string;
  readonly priority: number;
  readonly effect: PolicyEffect;
  readonly tool?: string;
  readonly skill?: string;
  readonly tier?: ToolTier;
  readonly mode?: TurnMode;
}

/** Turns a configured rule into a table rule. A rule with a `skill` matches only calls naming a skill. */
export function configuredRule(rule: ConfiguredRule): PolicyRule {
  const toolMatches = rule.tool === undefined ? () => true : picomatch(rule.tool);
  const skillMatches = rule.skill === undefined ? undefined : picomatch(rule.skill);
  const parts = [
    rule.tool && `tool ${rule.tool}`,
    rule.skill && `skill ${rule.skill}`,
    rule.tier && `tier ${rule.tier}`,
    rule.mode && `mode ${rule.mode}`,
  ];
  return {
    name: rule.name,
    priority: rule.priority,
    effect: rule.effect,
    description: `${rule.effect} ${parts.filter(Boolean).join(", ") || "every call"} (configuration)`,
    origin: "config",
    matches: (call) =>
      toolMatches(call.tool) &&
      (skillMatches === undefined || (call.skill !== undefined && skillMatches(call.skill))) &&
      (rule.tier === undefined || call.tier === rule.tier) &&
      (rule.mode === undefined || call.mode === rule.mode),
  };
}
