import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Registry } from "../../src/extensions/registry.js";
import type { AuditEvent } from "../../src/observe/events.js";
import { narrow, type PolicyDecision } from "../../src/policy/decide.js";
import { MemoryGrantStore } from "../../src/policy/grants.js";
import { BUILTIN_RULES, type PolicyEffect } from "../../src/policy/rules.js";
import type { TurnMode } from "../../src/policy/tiers.js";
import { grant } from "../../src/skill/content-hash.js";
import { Broker, type CallScope } from "../../src/tools/broker.js";
import { narrowByHooks } from "../../src/tools/call-hooks.js";
import { registryHooks } from "../../src/tools/extension-hooks.js";
import type { AnyTool, CallSubject } from "../../src/tools/tool.js";

const HASH = "ab".repeat(32);

/** A tool whose calls are about `subject`; it records whether it ran and with what. */
function subjectTool(name: string, subject: CallSubject) {
  const ran: unknown[] = [];
  const tool: AnyTool = {
    name,
    tier: subject.tier,
    description: "test tool",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, additionalProperties: false },
    prepare: (raw) => {
      const input = (raw ?? {}) as Record<string, unknown>;
      if (input.n !== undefined && typeof input.n !== "number")
        return { ok: false, message: "HOST: the input.n must be an integer.", subject };
      return { ok: true, input, subject };
    },
    execute: async (input) => {
      ran.push(input);
      return `ran with ${JSON.stringify(input)}`;
    },
  };
  return { tool, ran };
}

interface RuleCase {
  readonly tool: string;
  readonly mode: TurnMode;
  readonly subject: CallSubject;
  readonly granted?: boolean;
}

/** One call per built-in rule, made so that rule is the one that decides it. */
const RULE_CASES: Record<string, RuleCase> = {
  "disabled-skills-never-run": {
    tool: "load_skill",
    mode: "chat",
    subject: { tier: "read", skill: "s", hash: HASH, skillRunnable: false, summary: "load s" },
  },
  "drafts-never-touch-reviewed-skills": {
    tool: "draft_skill",
    mode: "chat",
    subject: { tier: "draft", draftTargetLocked: true, summary: "draft" },
  },
  "skill-edit-plan-mode": {
    tool: "edit_skill",
    mode: "plan",
    subject: { tier: "skill-edit", summary: "edit" },
  },
  "skill-edit-chats-only": {
    tool: "edit_skill",
    mode: "job",
    subject: { tier: "skill-edit", summary: "edit" },
  },
  "plan-mode-changes-nothing": {
    tool: "run_skill_script",
    mode: "plan",
    subject: { tier: "change", skill: "s", hash: HASH, skillRunnable: true, summary: "run" },
  },
  "skill-edit-always-asks": {
    tool: "edit_skill",
    mode: "chat",
    subject: { tier: "skill-edit", summary: "edit" },
  },
  "granted-calls-allowed": {
    tool: "run_skill_script",
    mode: "chat",
    subject: { tier: "change", skill: "s", hash: HASH, skillRunnable: true, summary: "run" },
    granted: true,
  },
  "drafts-allowed": { tool: "draft_skill", mode: "chat", subject: { tier: "draft", summary: "draft" } },
  "reads-allowed": { tool: "search_skills", mode: "chat", subject: { tier: "read", summary: "search" } },
  "changes-ask": {
    tool: "run_skill_script",
    mode: "chat",
    subject: { tier: "change", skill: "s", hash: HASH, skillRunnable: true, summary: "run" },
  },
  "destructive-asks": {
    tool: "run_skill_script",
    mode: "chat",
    subject: { tier: "destructive", skill: "s", hash: HASH, skillRunnable: true, summary: "wipe" },
  },
};

/** Every way an extension or hook might try to let a call through. */
function wideningRegistry(): Registry {
  const registry = new Registry();
  registry.on("before_tool", () => undefined);
  registry.on("before_tool", () => ({ allow: true, permissionDecision: "allow", decision: "approve" }));
  registry.on("before_tool", (event) => ({ args: event.args }));
  registry.on("approval", () => "once");
  registry.approval(() => true);
  registry.approval(() => "allow");
  return registry;
}

function setup(ruleCase: RuleCase, registry: Registry) {
  const asked: string[] = [];
  const events: AuditEvent[] = [];
  const grants = new MemoryGrantStore();
  const scope: CallScope = { kind: ruleCase.mode === "job" ? "job" : "chat", id: "c1", mode: ruleCase.mode };
  if (ruleCase.granted === true) grants.addGrant(scope, grant("s", HASH));
  const broker = new Broker({
    grants,
    hooks: registryHooks(registry),
    approve: async (request) => {
      asked.push(request.tool);
      return "decline";
    },
    audit: { record: (event) => events.push(event) },
  });
  const { tool, ran } = subjectTool(ruleCase.tool, ruleCase.subject);
  return { call: (input: unknown = { n: 1 }) => broker.call(scope, tool, input), ran, asked, events, broker };
}

describe("no extension, hook or approval policy widens a rule (every built-in rule)", () => {
  it("has a case for every built-in rule, and each case is decided by its rule", async () => {
    expect(Object.keys(RULE_CASES).sort()).toEqual(BUILTIN_RULES.map((rule) => rule.name).sort());
    for (const [name, ruleCase] of Object.entries(RULE_CASES)) {
      const { call } = setup(ruleCase, new Registry());
      expect((await call()).decision?.rule, name).toBe(name);
    }
  });

  it.each(BUILTIN_RULES.map((rule) => [rule.name, rule.effect] as const))(
    "%s (%s) is kept when every hook and policy says yes",
    async (name, effect) => {
      const ruleCase = RULE_CASES[name] as RuleCase;
      const { call, ran, asked } = setup(ruleCase, wideningRegistry());
      const result = await call();
      if (effect === "deny") {
        expect(result.status).toBe("denied");
        expect(result.text).toMatch(/^HOST: /);
        expect(asked).toEqual([]);
        expect(ran).toEqual([]);
      } else if (effect === "ask") {
        // The ask is not skipped: the person is asked (and declines here).
        expect(asked).toEqual([ruleCase.tool]);
        expect(result.status).toBe("declined");
        expect(ran).toEqual([]);
      } else {
        expect(result.status).toBe("ok");
        expect(ran).toHaveLength(1);
      }
    },
  );

  it.each(BUILTIN_RULES.filter((rule) => rule.effect !== "deny").map((rule) => [rule.name] as const))(
    "%s: a before_tool deny refuses the call with HOST: and the hook's reason, without asking",
    async (name) => {
      const registry = new Registry();
      registry.on("before_tool", () => ({ deny: "not on Fridays" }));
      const { call, ran, asked, events } = setup(RULE_CASES[name] as RuleCase, registry);
      const result = await call();
      expect(result).toMatchObject({
        status: "denied",
        text: "HOST: not allowed: not on Fridays (a before_tool hook).",
      });
      expect(ran).toEqual([]);
      expect(asked).toEqual([]);
      expect(events.find((event) => event.type === "policy-narrowed")).toMatchObject({
        rule: "before-tool-hook",
        decision: "deny",
      });
    },
  );

  it("an allowed call is asked about when a hook or the policy says ask, and refused when the policy says no", async () => {
    const asking = new Registry();
    asking.on("before_tool", () => ({ ask: "looks unusual" }));
    const first = setup(RULE_CASES["reads-allowed"] as RuleCase, asking);
    expect((await first.call()).status).toBe("declined");
    expect(first.asked).toEqual(["search_skills"]);

    const policyAsks = new Registry();
    policyAsks.approval(() => "ask");
    const second = setup(RULE_CASES["reads-allowed"] as RuleCase, policyAsks);
    expect((await second.call()).status).toBe("declined");
    expect(second.asked).toEqual(["search_skills"]);

    const policyRefuses = new Registry();
    policyRefuses.approval((call) => !call.tool.startsWith("run_"));
    const third = setup(RULE_CASES["changes-ask"] as RuleCase, policyRefuses);
    const refused = await third.call();
    expect(refused).toMatchObject({
      status: "denied",
      text: "HOST: not allowed: the approval policy refused this call.",
    });
    expect(third.asked).toEqual([]);
  });

  it("an approval policy that throws refuses the call and is noted", async () => {
    const registry = new Registry();
    registry.approval(() => {
      throw new Error("policy bug");
    });
    const { call, ran } = setup(RULE_CASES["reads-allowed"] as RuleCase, registry);
    expect((await call()).status).toBe("denied");
    expect(ran).toEqual([]);
    expect(registry.notes).toEqual(["approval policy failed: Error: policy bug"]);
  });

  it("narrowing never widens, whatever the rules, hooks and policy say (property)", async () => {
    const effect = fc.constantFrom<PolicyEffect>("allow", "ask", "deny");
    const policyAnswer = fc.constantFrom(true, false, "allow", "ask", "deny", undefined);
    await fc.assert(
      fc.asyncProperty(effect, fc.boolean(), fc.boolean(), policyAnswer, async (ruled, deny, ask, answer) => {
        const registry = new Registry();
        registry.approval(() => answer as boolean);
        const decision: PolicyDecision = { effect: ruled, rule: "r", priority: 1, description: "d" };
        const result = await narrowByHooks(
          decision,
          { ...(deny ? { deny: "x" } : {}), ...(ask ? { ask: "y" } : {}) },
          registryHooks(registry),
          { tool: "t" },
        );
        expect(narrow(ruled, result.effect)).toBe(result.effect);
        if (ruled === "deny") expect(result).toBe(decision);
      }),
    );
  });
});

describe("hooks change arguments and results", () => {
  it("replaced arguments are prepared again: a valid replacement runs, an invalid one is refused", async () => {
    const good = new Registry();
    good.on("before_tool", () => ({ args: { n: 7 } }));
    const first = setup(RULE_CASES["reads-allowed"] as RuleCase, good);
    expect((await first.call({ n: 1 })).text).toBe('ran with {"n":7}');

    const bad = new Registry();
    bad.on("before_tool", () => ({ args: { n: "seven" } }));
    const second = setup(RULE_CASES["reads-allowed"] as RuleCase, bad);
    expect(await second.call({ n: 1 })).toMatchObject({
      status: "refused",
      text: "HOST: the input.n must be an integer.",
    });
    expect(second.ran).toEqual([]);
  });

  it("after_tool hooks rewrite the result in a chain; a failing one is skipped", async () => {
    const registry = new Registry();
    registry.on("after_tool", (event) => `${event.result} [checked]`);
    registry.on("after_tool", () => {
      throw new Error("flaky");
    });
    registry.on("after_tool", (event) => ({ result: `${event.result} [logged]` }));
    const { call } = setup(RULE_CASES["reads-allowed"] as RuleCase, registry);
    expect((await call({ n: 2 })).text).toBe('ran with {"n":2} [checked] [logged]');
    expect(registry.notes).toEqual(["after_tool hook failed: Error: flaky"]);
  });

  it("the approval event tells hooks a person is asked and what they answered", async () => {
    const registry = new Registry();
    const seen: unknown[] = [];
    registry.on("approval", (event) => {
      seen.push(event.answer ?? "asking");
    });
    const { call } = setup(RULE_CASES["changes-ask"] as RuleCase, registry);
    await call();
    expect(seen).toEqual(["asking", "decline"]);
  });
});
