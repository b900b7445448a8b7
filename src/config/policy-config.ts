import { isPlainObject } from "../core/safe-json.js";
import { TOOL_TIERS, type ToolTier, TURN_MODES, type TurnMode } from "../policy/tiers.js";

/** An owner's policy rule as written in `config.yaml` (see docs/policy.md). */
export interface PolicyRuleConfig {
  readonly name: string;
  readonly priority: number;
  readonly effect: "allow" | "ask" | "deny";
  /** A glob on the tool name. */
  readonly tool?: string;
  /** A glob on the skill name; such a rule matches only calls that name a skill. */
  readonly skill?: string;
  readonly tier?: ToolTier;
  readonly mode?: TurnMode;
}

/** The `policy` section. */
export interface PolicyConfig {
  readonly rules: readonly PolicyRuleConfig[];
  /** How long an approval request waits for an answer. */
  readonly approvalTtlSeconds: number;
}

/** No owner rules; requests wait 10 minutes. */
export const DEFAULT_POLICY_CONFIG: PolicyConfig = { rules: [], approvalTtlSeconds: 600 };

const RULE_KEYS = ["name", "priority", "effect", "tool", "skill", "tier", "mode"];
const EFFECTS = ["allow", "ask", "deny"];

/** Reads the `policy` section, adding every problem to `problems`. */
export function readPolicyConfig(section: Record<string, unknown>, problems: string[]): PolicyConfig {
  for (const key of Object.keys(section)) {
    if (key !== "rules" && key !== "approval_ttl_seconds") problems.push(`unknown key "policy.${key}"`);
  }
  const ttl = section.approval_ttl_seconds;
  let approvalTtlSeconds = DEFAULT_POLICY_CONFIG.approvalTtlSeconds;
  if (ttl !== undefined && ttl !== null) {
    if (typeof ttl === "number" && Number.isInteger(ttl) && ttl > 0 && ttl <= 7 * 24 * 3600)
      approvalTtlSeconds = ttl;
    else problems.push('"policy.approval_ttl_seconds" must be a whole number of seconds from 1 to 604800');
  }
  const raw = section.rules;
  if (raw === undefined || raw === null) return { rules: [], approvalTtlSeconds };
  if (!Array.isArray(raw)) {
    problems.push('"policy.rules" must be a list');
    return { rules: [], approvalTtlSeconds };
  }
  const rules: PolicyRuleConfig[] = [];
  const names = new Set<string>();
  raw.forEach((entry, index) => {
    const rule = readRule(entry, `policy.rules[${index}]`, problems);
    if (rule === undefined) return;
    if (names.has(rule.name)) problems.push(`policy.rules[${index}]: the name "${rule.name}" is used twice`);
    names.add(rule.name);
    rules.push(rule);
  });
  return { rules, approvalTtlSeconds };
}

function readRule(entry: unknown, where: string, problems: string[]): PolicyRuleConfig | undefined {
  if (!isPlainObject(entry)) {
    problems.push(`${where} must be a mapping`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(entry))
    if (!RULE_KEYS.includes(key)) problems.push(`${where}: unknown key "${key}"`);
  const { name, priority, effect, tool, skill, tier, mode } = entry;
  if (typeof name !== "string" || name.length === 0) problems.push(`${where}: "name" must be text`);
  if (typeof priority !== "number" || !Number.isInteger(priority) || priority < 0 || priority > 1000) {
    problems.push(`${where}: "priority" must be a whole number from 0 to 1000`);
  }
  if (typeof effect !== "string" || !EFFECTS.includes(effect))
    problems.push(`${where}: "effect" must be allow, ask or deny`);
  for (const [key, value] of [
    ["tool", tool],
    ["skill", skill],
  ] as const) {
    if (value !== undefined && (typeof value !== "string" || value.length === 0))
      problems.push(`${where}: "${key}" must be a name or glob`);
  }
  if (tier !== undefined && !(TOOL_TIERS as readonly unknown[]).includes(tier))
    problems.push(`${where}: "tier" must be one of ${TOOL_TIERS.join(", ")}`);
  if (mode !== undefined && !(TURN_MODES as readonly unknown[]).includes(mode))
    problems.push(`${where}: "mode" must be one of ${TURN_MODES.join(", ")}`);
  if (problems.length > before) return undefined;
  return {
    name: name as string,
    priority: priority as number,
    effect: effect as PolicyRuleConfig["effect"],
    ...(tool !== undefined ? { tool: tool as string } : {}),
    ...(skill !== undefined ? { skill: skill as string } : {}),
    ...(tier !== undefined ? { tier: tier as ToolTier } : {}),
    ...(mode !== undefined ? { mode: mode as TurnMode } : {}),
  };
}
