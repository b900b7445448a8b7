import { afterEach, describe, expect, it } from "vitest";
import { createSkillgate } from "../../../src/app/skillgate.js";
import { LuaCapabilityProvider } from "../../../src/capabilities/lua/lua-provider.js";
import { LuaRuntime } from "../../../src/capabilities/lua/lua-runtime.js";
import type { Caller } from "../../../src/capabilities/pipeline/invocation.js";
import { INVOCATION_ERROR_CODES } from "../../../src/capabilities/pipeline/invocation.js";
import { CapabilityPipeline } from "../../../src/capabilities/pipeline/invoke.js";
import {
  INVOCATION_FAILURE_CODES,
  INVOCATION_REFUSAL_CODES,
  LUA_SKILL_ERROR_CODES,
} from "../../../src/core/errors.js";
import { MemoryAuditSink } from "../../../src/observe/audit-sinks.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { silentLogger } from "../../../src/observe/logger.js";
import { isolatedFolders, makeTree } from "../../helpers/skill-tree.js";
import { descriptor, memoryIndex, NO_PERMISSIONS, provider } from "../helpers/memory-index.js";

/**
 * A Lua skill's bounds end to end: an endless loop and a memory bomb end with their own codes
 * at the caller of the pipeline and of the turn's `invoke_capability`, not `capability_failed`,
 * and the same state, the same pipeline and other capabilities keep serving.
 */

const SOURCE = `
  function invoke(ctx, p)
    if p.path == "spin" then
      while true do pcall(function() while true do end end) end
    end
    if p.path == "bomb" then
      local t = {}
      for i = 1, 1e9 do t[i] = string.rep("x", 4096) .. i end
    end
    return { summary = "served " .. p.path, findings = {} }
  end`;

const runtimes: LuaRuntime[] = [];
afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.close();
});

/** A real Lua provider with small bounds, and a plain code-review provider beside it. */
async function providers() {
  const runtime = await LuaRuntime.create({
    skill: "bounded-skill",
    source: SOURCE,
    chunkName: "bounded.lua",
    instructionLimit: 2_000_000,
    memoryLimitBytes: 8 * 1024 * 1024,
  });
  runtimes.push(runtime);
  const lua = new LuaCapabilityProvider(
    descriptor({
      id: "bounded-skill",
      kind: "lua_skill",
      capabilities: ["workflow.bounded"],
      inputSchema: {
        kind: "inline",
        schema: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
      },
      limits: { timeoutMs: 60_000, maxConcurrency: 4 },
    }),
    NO_PERMISSIONS,
    { entry: "invoke" },
    runtime,
    1,
  );
  const review = provider({ id: "code-review-skill" });
  return { lua, review, runtime };
}

const CALLER: Caller = {
  kind: "cli",
  agentId: "cli",
  runtimeMode: "normal",
  interactive: false,
  scope: { kind: "job", id: "bounds" },
};

describe("Lua bounds through the invocation pipeline", () => {
  it.each([
    ["an endless loop, even inside a pcall loop,", "lua_cpu_limit", "spin"],
    ["a memory bomb", "lua_memory_limit", "bomb"],
  ])("%s ends %s at the caller, and the host keeps serving", async (_label, code, path) => {
    const { lua, review, runtime } = await providers();
    const audit = new MemoryAuditSink();
    const pipeline = new CapabilityPipeline({ index: memoryIndex([lua, review]), audit, environment: {} });
    const ended = await pipeline.invoke({ capability: "workflow.bounded", payload: { path } }, CALLER);
    expect(ended.ok).toBe(false);
    expect(!ended.ok && ended.refusal.code).toBe(code);
    expect(!ended.ok && ended.refusal.message).toMatch(
      new RegExp(`^HOST: provider "bounded-skill" .*\\(${code}\\)`),
    );
    expect(ended.record).toMatchObject({ status: "failed", errorKind: code, provider: "bounded-skill" });
    expect(audit.events.at(-1)).toMatchObject({ type: "/skill/failed", errorKind: code });
    // The same state answers the next call, and the pipeline serves every other capability.
    const next = await pipeline.invoke(
      { capability: "workflow.bounded", payload: { path: "app.json" } },
      CALLER,
    );
    expect(next.ok && next.output).toEqual({ summary: "served app.json", findings: [] });
    const other = await pipeline.invoke(
      { capability: "workflow.code_review", payload: { scope: "current_diff" } },
      CALLER,
    );
    expect(other.ok).toBe(true);
    expect(runtime.inFlight).toBe(0);
  });

  it("a provider's uncoded throw is still capability_failed, naming only the error's kind", async () => {
    const broken = provider({ id: "broken-skill" }, () => {
      throw new TypeError("the secret is hunter2");
    });
    const pipeline = new CapabilityPipeline({ index: memoryIndex([broken]), environment: {} });
    const result = await pipeline.invoke(
      { capability: "workflow.code_review", payload: { scope: "current_diff" } },
      CALLER,
    );
    expect(!result.ok && result.refusal).toEqual({
      code: "capability_failed",
      message: 'HOST: provider "broken-skill" failed (TypeError); nothing was returned.',
    });
  });
});

describe("Lua bounds through the turn's invoke_capability", () => {
  it("the model reads each code, the audit files it, and the next call is served", async () => {
    const { lua, review } = await providers();
    const events: AuditEvent[] = [];
    const skillgate = createSkillgate({
      ...isolatedFolders(makeTree()),
      roots: [],
      builtins: false,
      audit: { record: (event) => events.push(event) },
      logger: silentLogger,
      capabilityIndex: memoryIndex([lua, review]),
    });
    try {
      const turn = skillgate.createTurn({ chatId: "chat-bounds" });
      for (const [path, code] of [
        ["spin", "lua_cpu_limit"],
        ["bomb", "lua_memory_limit"],
      ] as const) {
        const ended = await turn.call("invoke_capability", {
          capability: "workflow.bounded",
          payload: { path },
        });
        expect(ended.status).toBe("failed");
        expect(ended.text).toMatch(/^HOST: /);
        expect(ended.text).toContain(`(${code})`);
        expect(events.filter((event) => event.type === "/skill/failed").at(-1)).toMatchObject({
          errorKind: code,
        });
        const served = await turn.call("invoke_capability", {
          capability: "workflow.bounded",
          payload: { path: "app.json" },
        });
        expect(served.status).toBe("ok");
        expect(JSON.parse(served.text)).toEqual({ summary: "served app.json", findings: [] });
      }
    } finally {
      skillgate.close();
    }
  });
});

describe("the pipeline's codes come from core's lists", () => {
  it("no code is in two lists, so each code's audit status is one", () => {
    const all = [...INVOCATION_REFUSAL_CODES, ...INVOCATION_FAILURE_CODES, ...LUA_SKILL_ERROR_CODES];
    expect(new Set<string>(all).size).toBe(all.length);
    expect(INVOCATION_ERROR_CODES).toHaveLength(all.length);
  });
});
