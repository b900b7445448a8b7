import { describe, expect, it } from "vitest";
import { checkCallerPermission, isReadOnly } from "../../../src/capabilities/pipeline/caller-permission.js";
import type { Caller } from "../../../src/capabilities/pipeline/invocation.js";
import { memoryIndex, NO_PERMISSIONS, provider } from "../helpers/memory-index.js";

const turn: Caller = {
  kind: "turn",
  agentId: "chat-1",
  runtimeMode: "normal",
  interactive: true,
  scope: { kind: "chat", id: "chat-1" },
};

const reader = provider({ id: "reader" });
const writer = provider({ id: "writer" }, undefined, {
  permissions: { ...NO_PERMISSIONS, fsRead: ["workspace"], fsWrite: ["workspace"] },
});
const teamOnly = provider({
  id: "team-only",
  capabilities: ["workflow.swarm"],
  runtimeGate: { allowedModes: ["team"], disallowTeamWorker: false, requiresInteractiveUser: false },
});
const needsPerson = provider({
  id: "needs-person",
  capabilities: ["workflow.ask"],
  runtimeGate: { allowedModes: ["normal", "job"], disallowTeamWorker: true, requiresInteractiveUser: true },
});
const index = memoryIndex([reader, writer, teamOnly, needsPerson]);

describe("caller permission", () => {
  it("permits a turn every provider registered for its mode", () => {
    const result = checkCallerPermission(turn, "workflow.code_review", index);
    expect(result.ok && result.value.permitted.map((item) => item.descriptor.id)).toEqual([
      "reader",
      "writer",
    ]);
  });

  it("refuses an unknown capability with capability_unknown", () => {
    const result = checkCallerPermission(turn, "workflow.nothing", index);
    expect(!result.ok && result.refusal.code).toBe("capability_unknown");
    expect(!result.ok && result.refusal.message).toMatch(/^HOST: /);
  });

  it("refuses a team-only capability in the normal runtime with capability_not_in_runtime", () => {
    const result = checkCallerPermission(turn, "workflow.swarm", index);
    expect(!result.ok && result.refusal.code).toBe("capability_not_in_runtime");
    expect(checkCallerPermission({ ...turn, runtimeMode: "team" }, "workflow.swarm", index).ok).toBe(true);
  });

  it("lets a plan-mode caller use read-only providers only", () => {
    const result = checkCallerPermission({ ...turn, runtimeMode: "plan" }, "workflow.code_review", index);
    expect(result.ok && result.value.permitted.map((item) => item.descriptor.id)).toEqual(["reader"]);
    expect(result.ok && result.value.refused.get("writer")).toMatch(/plan mode only reads/);
    expect(isReadOnly(writer.permissions)).toBe(false);
    expect(isReadOnly({ ...NO_PERMISSIONS, network: true })).toBe(false);
    expect(isReadOnly({ ...NO_PERMISSIONS, shell: true })).toBe(false);
  });

  it("refuses plan mode when no provider is read-only", () => {
    const only = memoryIndex([writer]);
    const result = checkCallerPermission({ ...turn, runtimeMode: "plan" }, "workflow.code_review", only);
    expect(!result.ok && result.refusal.code).toBe("caller_not_permitted");
  });

  it("lets a Lua skill invoke only its manifest's adapter capabilities, and never itself", () => {
    const lua: Caller = {
      ...turn,
      kind: "lua_skill",
      agentId: "config-lint-skill",
      allowedCapabilities: ["config.inspect"],
    };
    const denied = checkCallerPermission(lua, "workflow.code_review", index);
    expect(!denied.ok && denied.refusal.code).toBe("caller_not_permitted");
    const self = provider({ id: "config-lint-skill", capabilities: ["config.inspect"] });
    const selfIndex = memoryIndex([self]);
    const selfCall = checkCallerPermission(lua, "config.inspect", selfIndex);
    expect(!selfCall.ok && selfCall.refusal.code).toBe("caller_not_permitted");
    const other = memoryIndex([provider({ id: "inspector", capabilities: ["config.inspect"] })]);
    expect(checkCallerPermission(lua, "config.inspect", other).ok).toBe(true);
  });

  it("refuses a gate that needs a person to a caller without one", () => {
    const job: Caller = { ...turn, runtimeMode: "job", interactive: false };
    const result = checkCallerPermission(job, "workflow.ask", index);
    expect(!result.ok && result.refusal.code).toBe("caller_not_permitted");
    expect(checkCallerPermission(turn, "workflow.ask", index).ok).toBe(true);
  });

  it("checks the gate again even when the index would show a provider", () => {
    const leaky = {
      revision: 1,
      providersOf: () => [reader],
      capabilities: () => ["workflow.code_review"],
    };
    const result = checkCallerPermission({ ...turn, runtimeMode: "team" }, "workflow.code_review", leaky);
    expect(!result.ok && result.refusal.code).toBe("caller_not_permitted");
  });
});
