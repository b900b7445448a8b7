import { describe, expect, it } from "vitest";
import { DEFAULT_DENY_RULE, narrow, PolicyTable } from "../../src/policy/decide.js";
import { BUILTIN_RULES, configuredRule, type PolicyCall } from "../../src/policy/rules.js";

const noGrants = { grants: new Set<string>() };
const call = (fields: Partial<PolicyCall>): PolicyCall => ({
  tool: "run_skill_script",
  tier: "change",
  mode: "chat",
  ...fields,
});

describe("the built-in rule table", () => {
  const table = new PolicyTable();

  it("has the reference system's rules at their priorities", () => {
    const byName = Object.fromEntries(BUILTIN_RULES.map((rule) => [rule.name, [rule.priority, rule.effect]]));
    expect(byName["disabled-skills-never-run"]).toEqual([120, "deny"]);
    expect(byName["drafts-never-touch-reviewed-skills"]).toEqual([120, "deny"]);
    expect(byName["skill-edit-plan-mode"]).toEqual([110, "deny"]);
    expect(byName["skill-edit-chats-only"]).toEqual([109, "deny"]);
    expect(byName["skill-edit-always-asks"]).toEqual([97, "ask"]);
    expect(byName["drafts-allowed"]).toEqual([75, "allow"]);
  });

  it("orders rules by priority, highest first", () => {
    const priorities = table.rules.map((rule) => rule.priority);
    expect(priorities).toEqual([...priorities].sort((left, right) => right - left));
  });

  const rows: Array<[string, Partial<PolicyCall>, ReadonlySet<string>, string, string]> = [
    [
      "a disabled skill is never loaded",
      { tool: "load_skill", tier: "read", skill: "x", skillRunnable: false },
      new Set(),
      "deny",
      "disabled-skills-never-run",
    ],
    [
      "a disabled skill's resource is never read",
      { tool: "read_skill_resource", tier: "read", skill: "x", skillRunnable: false },
      new Set(),
      "deny",
      "disabled-skills-never-run",
    ],
    [
      "a disabled skill never runs, even with its grant",
      { skill: "x", skillRunnable: false, grant: "skill:x@abcdef12" },
      new Set(["skill:x@abcdef12"]),
      "deny",
      "disabled-skills-never-run",
    ],
    [
      "read_skill of a disabled skill",
      { tool: "read_skill", tier: "read", skill: "x", skillRunnable: false },
      new Set(),
      "deny",
      "disabled-skills-never-run",
    ],
    [
      "draft_skill on a locked skill",
      { tool: "draft_skill", tier: "draft", skill: "x", draftTargetLocked: true },
      new Set(),
      "deny",
      "drafts-never-touch-reviewed-skills",
    ],
    [
      "edit_skill in plan mode",
      { tool: "edit_skill", tier: "skill-edit", mode: "plan" },
      new Set(),
      "deny",
      "skill-edit-plan-mode",
    ],
    [
      "edit_skill in a job",
      { tool: "edit_skill", tier: "skill-edit", mode: "job" },
      new Set(),
      "deny",
      "skill-edit-chats-only",
    ],
    ["a change in plan mode", { mode: "plan" }, new Set(), "deny", "plan-mode-changes-nothing"],
    [
      "a read in plan mode",
      { tool: "load_skill", tier: "read", mode: "plan", skill: "x", skillRunnable: true },
      new Set(),
      "allow",
      "reads-allowed",
    ],
    [
      "edit_skill in a chat asks",
      { tool: "edit_skill", tier: "skill-edit" },
      new Set(),
      "ask",
      "skill-edit-always-asks",
    ],
    [
      "edit_skill asks even when a grant is held",
      { tool: "edit_skill", tier: "skill-edit", grant: "skill:x@abcdef12" },
      new Set(["skill:x@abcdef12"]),
      "ask",
      "skill-edit-always-asks",
    ],
    [
      "a held grant runs a change",
      { skill: "x", skillRunnable: true, grant: "skill:x@abcdef12" },
      new Set(["skill:x@abcdef12"]),
      "allow",
      "granted-calls-allowed",
    ],
    [
      "a held grant runs a destructive call",
      { tier: "destructive", skill: "x", skillRunnable: true, grant: "skill:x@abcdef12" },
      new Set(["skill:x@abcdef12"]),
      "allow",
      "granted-calls-allowed",
    ],
    [
      "a grant for another hash does not",
      { skill: "x", skillRunnable: true, grant: "skill:x@00000000" },
      new Set(["skill:x@abcdef12"]),
      "ask",
      "changes-ask",
    ],
    [
      "draft_skill is allowed",
      { tool: "draft_skill", tier: "draft", skill: "new-one", draftTargetLocked: false },
      new Set(),
      "allow",
      "drafts-allowed",
    ],
    [
      "mark_chats_reviewed is allowed",
      { tool: "mark_chats_reviewed", tier: "draft" },
      new Set(),
      "allow",
      "drafts-allowed",
    ],
    ["a read is allowed", { tool: "list_skills", tier: "read" }, new Set(), "allow", "reads-allowed"],
    ["a change asks", { skill: "x", skillRunnable: true }, new Set(), "ask", "changes-ask"],
    ["a call naming no skill is a change and asks", {}, new Set(), "ask", "changes-ask"],
    [
      "a destructive call asks",
      { tier: "destructive", skill: "x", skillRunnable: true },
      new Set(),
      "ask",
      "destructive-asks",
    ],
  ];

  it.each(rows)("%s", (_title, fields, grants, effect, rule) => {
    const decision = table.decide(call(fields), { grants });
    expect(decision).toMatchObject({ effect, rule });
  });

  it("denies what no rule covers", () => {
    const empty = new PolicyTable([]);
    expect(empty.decide(call({ tier: "read" }), noGrants)).toMatchObject({
      effect: "deny",
      rule: DEFAULT_DENY_RULE,
    });
    const readsOnly = new PolicyTable(BUILTIN_RULES.filter((rule) => rule.name === "reads-allowed"));
    expect(readsOnly.decide(call({}), noGrants)).toMatchObject({ effect: "deny", rule: DEFAULT_DENY_RULE });
  });

  it("every built-in rule decides at least one call (no dead rule)", () => {
    const deciding = new Set(rows.map((row) => row[4]));
    for (const rule of BUILTIN_RULES) expect(deciding.has(rule.name), rule.name).toBe(true);
  });
});

describe("owner rules from configuration", () => {
  it("an owner's allow above the asks lets a trusted skill run without asking", () => {
    const table = PolicyTable.withOwnerRules([
      configuredRule({
        name: "trust-backup",
        priority: 95,
        effect: "allow",
        skill: "backup-*",
        tier: "change",
      }),
    ]);
    expect(table.decide(call({ skill: "backup-check", skillRunnable: true }), noGrants)).toMatchObject({
      effect: "allow",
      rule: "trust-backup",
    });
    expect(table.decide(call({ skill: "other", skillRunnable: true }), noGrants)).toMatchObject({
      effect: "ask",
      rule: "changes-ask",
    });
  });

  it("an owner's allow cannot beat a higher-priority built-in deny", () => {
    const table = PolicyTable.withOwnerRules([
      configuredRule({ name: "edit-freely", priority: 100, effect: "allow", tool: "edit_skill" }),
    ]);
    expect(
      table.decide(call({ tool: "edit_skill", tier: "skill-edit", mode: "job" }), noGrants),
    ).toMatchObject({ effect: "deny", rule: "skill-edit-chats-only" });
    expect(table.decide(call({ tool: "edit_skill", tier: "skill-edit" }), noGrants)).toMatchObject({
      effect: "allow",
      rule: "edit-freely",
    });
  });

  it("an owner's deny blocks a tool by glob", () => {
    const table = PolicyTable.withOwnerRules([
      configuredRule({ name: "no-runs-in-jobs", priority: 100, effect: "deny", tool: "run_*", mode: "job" }),
    ]);
    expect(
      table.decide(call({ mode: "job", skill: "x", grant: "g" }), { grants: new Set(["g"]) }),
    ).toMatchObject({ effect: "deny", rule: "no-runs-in-jobs" });
  });

  it("at equal priority the stricter effect wins", () => {
    const table = new PolicyTable([
      configuredRule({ name: "allow-all", priority: 10, effect: "allow" }),
      configuredRule({ name: "deny-all", priority: 10, effect: "deny" }),
    ]);
    expect(table.decide(call({}), noGrants).rule).toBe("deny-all");
  });

  it("a rule with a skill pattern never matches a call naming no skill", () => {
    const table = new PolicyTable([configuredRule({ name: "x", priority: 10, effect: "allow", skill: "*" })]);
    expect(table.decide(call({}), noGrants).rule).toBe(DEFAULT_DENY_RULE);
  });
});

describe("narrow", () => {
  it.each([
    ["allow", undefined, "allow"],
    ["allow", "ask", "ask"],
    ["allow", "deny", "deny"],
    ["ask", "allow", "ask"],
    ["ask", "deny", "deny"],
    ["deny", "allow", "deny"],
    ["deny", "ask", "deny"],
  ] as const)("%s narrowed by %s is %s", (decision, opinion, expected) => {
    expect(narrow(decision, opinion)).toBe(expected);
  });
});
