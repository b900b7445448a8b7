import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import { isSkillgateError } from "../../src/core/errors.js";
import { PolicyTable } from "../../src/policy/decide.js";
import { configuredRule } from "../../src/policy/rules.js";

function problemsOf(text: string): string[] {
  try {
    parseConfig(text, "config.yaml");
  } catch (error) {
    if (isSkillgateError(error, "invalid_config")) return (error.data as { problems: string[] }).problems;
    throw error;
  }
  return [];
}

describe("the policy section of config.yaml", () => {
  it("defaults to no owner rules and a 10-minute approval life", () => {
    expect(DEFAULT_CONFIG.policy).toEqual({ rules: [], approvalTtlSeconds: 600 });
    expect(parseConfig("skills: {}\n", "config.yaml").policy).toEqual({ rules: [], approvalTtlSeconds: 600 });
  });

  it("reads owner rules that then take their place in the table", () => {
    const config = parseConfig(
      "policy:\n  approval_ttl_seconds: 120\n  rules:\n    - name: trust-backups\n      priority: 95\n      effect: allow\n      tool: run_skill_script\n      skill: backup-*\n      tier: change\n      mode: chat\n",
      "config.yaml",
    );
    expect(config.policy).toEqual({
      approvalTtlSeconds: 120,
      rules: [
        {
          name: "trust-backups",
          priority: 95,
          effect: "allow",
          tool: "run_skill_script",
          skill: "backup-*",
          tier: "change",
          mode: "chat",
        },
      ],
    });
    const table = PolicyTable.withOwnerRules(config.policy.rules.map(configuredRule));
    const call = {
      tool: "run_skill_script",
      tier: "change" as const,
      mode: "chat" as const,
      skill: "backup-home",
      skillRunnable: true,
    };
    expect(table.decide(call, { grants: new Set() }).rule).toBe("trust-backups");
  });

  it.each([
    ["policy:\n  rules: {}\n", '"policy.rules" must be a list'],
    ["policy:\n  rules:\n    - 3\n", "policy.rules[0] must be a mapping"],
    [
      "policy:\n  rules:\n    - name: x\n      priority: high\n      effect: allow\n",
      'policy.rules[0]: "priority" must be a whole number from 0 to 1000',
    ],
    [
      "policy:\n  rules:\n    - name: x\n      priority: 5\n      effect: maybe\n",
      'policy.rules[0]: "effect" must be allow, ask or deny',
    ],
    [
      "policy:\n  rules:\n    - name: x\n      priority: 5\n      effect: deny\n      tier: huge\n",
      'policy.rules[0]: "tier" must be one of read, draft, change, destructive, skill-edit',
    ],
    [
      "policy:\n  rules:\n    - name: x\n      priority: 5\n      effect: deny\n      mode: night\n",
      'policy.rules[0]: "mode" must be one of chat, job, plan',
    ],
    [
      "policy:\n  rules:\n    - name: x\n      priority: 5\n      effect: deny\n      when: always\n",
      'policy.rules[0]: unknown key "when"',
    ],
    [
      "policy:\n  rules:\n    - {name: x, priority: 5, effect: deny}\n    - {name: x, priority: 6, effect: deny}\n",
      'policy.rules[1]: the name "x" is used twice',
    ],
    [
      "policy:\n  approval_ttl_seconds: 0\n",
      '"policy.approval_ttl_seconds" must be a whole number of seconds from 1 to 604800',
    ],
    ["policy:\n  colour: red\n", 'unknown key "policy.colour"'],
  ])("refuses %j", (text, problem) => {
    expect(problemsOf(text)).toContain(problem);
  });
});
