import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CapabilityEvent, CapabilityEvents } from "../../../src/capabilities/events.js";
import { auditEventOf, eventDataOf, InvocationAudit } from "../../../src/capabilities/pipeline/audit.js";
import type { Caller, InvocationRecord } from "../../../src/capabilities/pipeline/invocation.js";
import { AuditLog } from "../../../src/observe/audit-log.js";

const caller: Caller = {
  kind: "turn",
  agentId: "chat-7",
  runtimeMode: "normal",
  interactive: true,
  scope: { kind: "chat", id: "chat-7" },
};

const record: InvocationRecord = {
  requestId: "11111111-2222-3333-4444-555555555555",
  traceId: "0123456789abcdef0123456789abcdef",
  agentId: "chat-7",
  capability: "workflow.code_review",
  skillId: "code-review",
  provider: "code-review-skill",
  skillKind: "workflow_skill",
  runtimeGate: "normal",
  generation: 2,
  manifestDigest: "f".repeat(64),
  inputBytes: 40,
  outputBytes: 33,
  latencyMs: 12,
  status: "failed",
  errorKind: "output_invalid",
  touched: [{ path: "notes/review.md", access: "write" }],
};

describe("invocation audit", () => {
  it("writes every seed field to the audit log, and never a payload", () => {
    const data = mkdtempSync(join(tmpdir(), "audit-"));
    const log = new AuditLog({ dataFolder: data });
    const events: CapabilityEvent[] = [];
    const emitter = new CapabilityEvents();
    emitter.on((event) => events.push(event));
    const audit = new InvocationAudit({ audit: log, events: emitter });
    audit.invoked({ ...record, status: "ok" }, caller, "invoke_capability");
    audit.finished(record, caller, "invoke_capability");
    log.close();
    const lines = readFileSync(log.file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.type)).toEqual([
      "/skill/invoked",
      "capability-path-touched",
      "/skill/failed",
    ]);
    expect(lines[2]).toMatchObject({
      requestId: record.requestId,
      traceId: record.traceId,
      agentId: "chat-7",
      skillId: "code-review",
      provider: "code-review-skill",
      capability: "workflow.code_review",
      skillKind: "workflow_skill",
      runtimeGate: "normal",
      generation: 2,
      manifestDigest: "f".repeat(16),
      inputBytes: 40,
      outputBytes: 33,
      latencyMs: 12,
      status: "failed",
      errorKind: "output_invalid",
      tool: "invoke_capability",
      scope: { kind: "chat", id: "chat-7" },
    });
    expect(lines[1]).toMatchObject({ path: "notes/review.md", access: "write", tier: "change" });
    // What the query reads back is what was written.
    expect(log.query().map((event) => event.type)).toEqual([
      "/skill/invoked",
      "capability-path-touched",
      "/skill/failed",
    ]);
    expect(events.map((event) => event.name)).toEqual(["/skill/invoked", "/skill/failed"]);
    expect(events[1]?.data).toEqual(eventDataOf("/skill/failed", record));
    expect(events[1]?.data).toMatchObject({ status: "error", error_kind: "output_invalid", latency_ms: 12 });
    expect(events[0]?.data).not.toHaveProperty("status");
  });

  it("names completed for ok and failed for everything else", () => {
    const ok = auditEventOf("/skill/completed", "t", { ...record, status: "ok" }, caller, "x");
    expect(ok.status).toBe("ok");
    const started = auditEventOf("/skill/invoked", "t", record, caller, "x");
    expect(started.status).toBeUndefined();
    expect(started.latencyMs).toBeUndefined();
  });

  it("never throws when a sink does", () => {
    const audit = new InvocationAudit({
      audit: {
        record: () => {
          throw new Error("disk full");
        },
      },
      events: {
        emit: () => {
          throw new Error("closed");
        },
      },
    });
    expect(() => audit.finished(record, caller, "x")).not.toThrow();
  });
});
