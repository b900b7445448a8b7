import { describe, expect, it } from "vitest";
import { type CapabilityEvent, CapabilityEvents } from "../../../src/capabilities/events.js";
import type { Caller } from "../../../src/capabilities/pipeline/invocation.js";
import { CapabilityPipeline } from "../../../src/capabilities/pipeline/invoke.js";
import { MemoryAuditSink } from "../../../src/observe/audit-sinks.js";
import { memoryIndex, NO_PERMISSIONS, provider } from "../helpers/memory-index.js";

const WORKSPACE = "/srv/project";
const turn: Caller = {
  kind: "turn",
  agentId: "chat-1",
  runtimeMode: "normal",
  interactive: true,
  scope: { kind: "chat", id: "chat-1" },
  workspace: WORKSPACE,
};
const lua: Caller = {
  ...turn,
  kind: "lua_skill",
  agentId: "config-lint-skill",
  allowedCapabilities: ["workflow.code_review"],
};

function setup(answer?: Parameters<typeof provider>[1], limits = { timeoutMs: 5_000, maxConcurrency: 1 }) {
  const review = provider({ id: "code-review-skill", limits }, answer, {
    permissions: { ...NO_PERMISSIONS, fsRead: ["workspace"] },
    generation: 3,
  });
  const audit = new MemoryAuditSink();
  const events: CapabilityEvent[] = [];
  const emitter = new CapabilityEvents();
  emitter.on((event) => events.push(event));
  const pipeline = new CapabilityPipeline({
    index: memoryIndex([review]),
    audit,
    events: emitter,
    skillFolders: () => ["/home/someone/.codex/skills"],
    environment: { HOME: "/home/someone", GITHUB_TOKEN: "ghp_secretsecret" },
  });
  return { review, audit, events, pipeline };
}

const seedPayload = { scope: "current_diff", severity: "major" };

describe("invoke: the pipeline in seed 004's order", () => {
  it("answers the seed's call with the provider's output and one record", async () => {
    const { pipeline, audit, events, review } = setup();
    const result = await pipeline.invoke(
      {
        capability: "workflow.code_review",
        provider: "code-review-skill",
        payload: seedPayload,
        timeoutMs: 120_000,
      },
      turn,
    );
    expect(result.ok && result.output).toEqual({ summary: "fine", findings: [] });
    expect(review.calls).toEqual([seedPayload]);
    const record = result.record;
    expect(record).toMatchObject({
      agentId: "chat-1",
      capability: "workflow.code_review",
      provider: "code-review-skill",
      skillId: "code-review-skill",
      skillKind: "workflow_skill",
      runtimeGate: "normal,plan,job",
      generation: 3,
      manifestDigest: "ab".repeat(32),
      inputBytes: Buffer.byteLength(JSON.stringify(seedPayload)),
      outputBytes: Buffer.byteLength(JSON.stringify({ summary: "fine", findings: [] })),
      status: "ok",
    });
    expect(record.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(record.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(record.errorKind).toBeUndefined();
    expect(events.map((event) => event.name)).toEqual(["/skill/invoked", "/skill/completed"]);
    expect(events[1]?.data).toMatchObject({
      request_id: record.requestId,
      trace_id: record.traceId,
      agent_id: "chat-1",
      skill_id: "code-review-skill",
      provider: "code-review-skill",
      capability: "workflow.code_review",
      skill_kind: "workflow_skill",
      runtime_gate: ["normal", "plan", "job"],
      generation: 3,
      manifest_digest: "ab".repeat(32),
      input_bytes: record.inputBytes,
      output_bytes: record.outputBytes,
      status: "ok",
    });
    expect(audit.events.map((event) => event.type)).toEqual(["/skill/invoked", "/skill/completed"]);
    expect(audit.events[1]).toMatchObject({
      capability: "workflow.code_review",
      status: "ok",
      generation: 3,
    });
  });

  it("Security: Lua passes a Skill path in payload → Request rejected", async () => {
    const { pipeline, review, events } = setup();
    const result = await pipeline.invoke(
      {
        capability: "workflow.code_review",
        payload: {
          scope: "current_diff",
          extra: { files: ["/home/someone/.codex/skills/code-review/SKILL.md"] },
        },
      },
      lua,
    );
    expect(!result.ok && result.refusal.code).toBe("payload_skill_path");
    expect(review.calls).toEqual([]);
    expect(result.record).toMatchObject({
      status: "refused",
      errorKind: "payload_skill_path",
      provider: "code-review-skill",
    });
    expect(events.at(-1)?.name).toBe("/skill/failed");
    expect(events.at(-1)?.data).toMatchObject({ status: "refused", error_kind: "payload_skill_path" });
  });

  const HOSTILE: Array<[string, unknown, string]> = [
    ["a skill path in an array", { scope: "current_diff", list: ["a", "x/SKILL.md"] }, "payload_skill_path"],
    [
      "a command template in a nested key",
      { scope: "current_diff", a: { "{{cmd}}": 1 } },
      "payload_command_template",
    ],
    ["an environment name as a value", { scope: "current_diff", n: ["GITHUB_TOKEN"] }, "payload_env"],
    [
      "an environment value deep down",
      { scope: "current_diff", a: [{ b: ["ghp_secretsecret"] }] },
      "payload_env",
    ],
    ["an env key", { scope: "current_diff", opts: { env: { A: "b" } } }, "payload_env"],
    ["a shell snippet", { scope: "current_diff", note: "x && rm -rf ~" }, "payload_shell"],
    [
      "a host path outside the workspace",
      { scope: "current_diff", file: "/etc/passwd" },
      "payload_host_path",
    ],
    [
      "a mode override",
      { scope: "current_diff", options: [{ runtime_mode: "team" }] },
      "payload_mode_override",
    ],
    [
      "a prototype key",
      JSON.parse('{"scope":"current_diff","a":{"__proto__":{"x":1}}}'),
      "payload_prototype_key",
    ],
    ["an oversize payload", { scope: "current_diff", blob: "x".repeat(300 * 1024) }, "payload_too_large"],
    [
      "a deep payload",
      { scope: "current_diff", deep: JSON.parse(`${"[".repeat(40)}1${"]".repeat(40)}`) },
      "payload_too_deep",
    ],
    ["a payload outside the input schema", { scope: "everything" }, "input_invalid"],
    ["a payload that is not an object", ["current_diff"], "payload_not_object"],
  ];
  for (const [what, payload, code] of HOSTILE)
    it(`refuses ${what} with ${code}, and the provider never runs`, async () => {
      const { pipeline, review } = setup();
      const result = await pipeline.invoke({ capability: "workflow.code_review", payload }, turn);
      expect(!result.ok && result.refusal.code).toBe(code);
      expect(!result.ok && result.refusal.message).toMatch(/^HOST: /);
      expect(result.record.status).toBe("refused");
      expect(review.calls).toEqual([]);
    });

  it("refuses an output that breaks its schema with output_invalid", async () => {
    const { pipeline } = setup(() => ({ summary: 42 }));
    const result = await pipeline.invoke({ capability: "workflow.code_review", payload: seedPayload }, turn);
    expect(!result.ok && result.refusal.code).toBe("output_invalid");
    expect(result.record).toMatchObject({ status: "failed", errorKind: "output_invalid" });
  });

  it("refuses a call over the concurrency limit with capability_busy", async () => {
    let release: () => void = () => {};
    const { pipeline } = setup(
      () =>
        new Promise((resolve) => {
          release = () => resolve({ summary: "late", findings: [] });
        }),
    );
    const first = pipeline.invoke({ capability: "workflow.code_review", payload: seedPayload }, turn);
    const second = await pipeline.invoke({ capability: "workflow.code_review", payload: seedPayload }, turn);
    expect(!second.ok && second.refusal.code).toBe("capability_busy");
    release();
    expect((await first).ok).toBe(true);
  });

  it("ends a call past its timeout with capability_timeout and aborts the provider", async () => {
    let aborted = false;
    const { pipeline } = setup(
      (_payload, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            aborted = true;
            reject(context.signal.reason);
          });
        }),
    );
    const result = await pipeline.invoke(
      { capability: "workflow.code_review", payload: seedPayload, timeoutMs: 20 },
      turn,
    );
    expect(!result.ok && result.refusal.code).toBe("capability_timeout");
    expect(result.record.status).toBe("timed_out");
    expect(aborted).toBe(true);
  });

  it("never lets a caller lengthen the provider's timeout", async () => {
    let seen = 0;
    const started = Date.now();
    const { pipeline } = setup(
      (_payload, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            seen = Date.now() - started;
            reject(new Error("stopped"));
          });
        }),
      { timeoutMs: 30, maxConcurrency: 1 },
    );
    const result = await pipeline.invoke(
      { capability: "workflow.code_review", payload: seedPayload, timeoutMs: 600_000 },
      turn,
    );
    expect(!result.ok && result.refusal.code).toBe("capability_timeout");
    expect(seen).toBeGreaterThan(0);
  });

  it("reports a provider's throw as capability_failed without its message", async () => {
    const { pipeline } = setup(() => {
      throw new Error("secret detail");
    });
    const result = await pipeline.invoke({ capability: "workflow.code_review", payload: seedPayload }, turn);
    expect(!result.ok && result.refusal.code).toBe("capability_failed");
    expect(!result.ok && result.refusal.message).not.toContain("secret detail");
  });

  it("refuses a malformed request before anything", async () => {
    const { pipeline } = setup();
    for (const request of [
      { capability: "", payload: {} },
      { capability: "workflow.code_review", payload: {}, timeoutMs: -1 },
      { capability: "workflow.code_review", payload: {}, provider: "" },
    ])
      expect(await pipeline.invoke(request, turn)).toMatchObject({
        ok: false,
        refusal: { code: "input_invalid" },
      });
  });

  it("records the workspace paths a provider touched", async () => {
    const { pipeline, audit } = setup((_payload, context) => {
      context.touched("src/a.ts", "read");
      context.touched("out/report.md", "write");
      return { summary: "s", findings: [] };
    });
    const result = await pipeline.invoke({ capability: "workflow.code_review", payload: seedPayload }, turn);
    expect(result.record.touched).toEqual([
      { path: "src/a.ts", access: "read" },
      { path: "out/report.md", access: "write" },
    ]);
    const touched = audit.events.filter((event) => event.type === "capability-path-touched");
    expect(touched.map((event) => [event.path, event.access])).toEqual([
      ["src/a.ts", "read"],
      ["out/report.md", "write"],
    ]);
  });

  it("passes the caller's runtime mode and the provider's permissions to the provider", async () => {
    const { pipeline } = setup((_payload, context) => {
      expect(context.runtimeMode).toBe("normal");
      expect(context.permissions.fsRead).toEqual(["workspace"]);
      return { summary: "s", findings: [] };
    });
    expect(
      (await pipeline.invoke({ capability: "workflow.code_review", payload: seedPayload }, turn)).ok,
    ).toBe(true);
  });
});
