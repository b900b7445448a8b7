import type { AuditEvent } from "../../../src/observe/events.js";
import { ApprovalBook } from "../../../src/policy/approvals.js";
import { PolicyTable } from "../../../src/policy/decide.js";
import { type GrantScope, type GrantStore, MemoryGrantStore } from "../../../src/policy/grants.js";
import type { BeforeToolVerdict, CallHooks } from "../../../src/tools/call-hooks.js";
import { type CallContext, type CallState, initialState } from "../../../src/tools/stages/call-state.js";
import type { Approver, CallScope } from "../../../src/tools/stages/call-types.js";
import type { AnyTool, CallSubject, PreparedCall } from "../../../src/tools/tool.js";

/** A full content hash for subjects that name a skill. */
export const HASH = "cd".repeat(32);

/** A change-tier subject naming skill `s`. */
export const RUN_SUBJECT: CallSubject = {
  tier: "change",
  skill: "s",
  hash: HASH,
  skillRunnable: true,
  summary: "run scripts/x.py of s",
};

/** A tool whose prepare and execute are given, recording what it was prepared and run with. */
export function stageTool(
  behaviour: {
    prepare?: (raw: unknown) => PreparedCall<unknown> | Promise<PreparedCall<unknown>>;
    execute?: (input: unknown) => Promise<string | { text: string; status: "ok" | "failed" }>;
  } = {},
) {
  const prepared: unknown[] = [];
  const ran: unknown[] = [];
  const tool: AnyTool = {
    name: "run_skill_script",
    tier: "by-skill",
    description: "a tool for stage tests",
    inputSchema: { type: "object" },
    prepare: (raw) => {
      prepared.push(raw);
      return behaviour.prepare?.(raw) ?? { ok: true, input: raw, subject: RUN_SUBJECT };
    },
    execute: async (input) => {
      ran.push(input);
      return (await behaviour.execute?.(input)) ?? "ran";
    },
  };
  return { tool, prepared, ran };
}

/** Hooks that give a fixed before_tool verdict and record what they were told. */
export function fixedHooks(
  verdict: BeforeToolVerdict = {},
  extra: Partial<CallHooks> = {},
): { hooks: CallHooks; told: string[] } {
  const told: string[] = [];
  return {
    told,
    hooks: {
      beforeTool: async () => {
        told.push("before_tool");
        return verdict;
      },
      afterTool: async () => {
        told.push("after_tool");
        return undefined;
      },
      approvalPolicy: async () => undefined,
      approvalAsked: async (event) => {
        told.push(`approval:${event.answer ?? "asked"}`);
      },
      ...extra,
    },
  };
}

/** A stage context with a real rule table, grant store and approval book, recording audit events. */
export function stageContext(
  parts: { approve?: Approver; hooks?: CallHooks; policy?: PolicyTable; grants?: MemoryGrantStore } = {},
) {
  const events: AuditEvent[] = [];
  const grants = parts.grants ?? new MemoryGrantStore();
  const grantReads: GrantScope[] = [];
  const countingGrants: GrantStore = {
    addGrant: (scope, key) => grants.addGrant(scope, key),
    grants: (scope) => {
      grantReads.push(scope);
      return grants.grants(scope);
    },
  };
  const policy = parts.policy ?? new PolicyTable();
  const context: CallContext = {
    policy: () => policy,
    grants: countingGrants,
    approvals: new ApprovalBook(),
    ...(parts.approve !== undefined ? { approve: parts.approve } : {}),
    ...(parts.hooks !== undefined ? { hooks: parts.hooks } : {}),
    record: (type, subject, extra = {}) =>
      events.push({
        type,
        time: new Date(0).toISOString(),
        requestId: "r1",
        scope: { kind: "chat", id: "c1" },
        tool: "run_skill_script",
        tier: subject.tier,
        ...extra,
      }),
  };
  return { context, events, grants, grantReads };
}

/** The chat scope the stage tests call in. */
export const CHAT: CallScope = { kind: "chat", id: "c1", mode: "chat" };

/** A call's state as the stage under test receives it. */
export function stateFor(tool: AnyTool, raw: unknown, extra: Partial<CallState> = {}): CallState {
  return { ...initialState("r1", CHAT, tool, raw, {}), ...extra };
}
