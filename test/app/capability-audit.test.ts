import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditCapabilityEvents } from "../../src/app/capability-audit.js";
import { createSkillgate } from "../../src/app/skillgate.js";
import { CapabilityEvents } from "../../src/capabilities/events.js";
import type { AuditEvent } from "../../src/observe/events.js";
import { capabilityTree } from "../helpers/capability-tree.js";
import { writeSkill } from "../helpers/skill-tree.js";

/** Registration events on the audit log (docs/audit.md, "Capability events"). */
describe("the capability plane's registration events on the audit log", () => {
  function setUp() {
    const tree = capabilityTree({ seed: true });
    writeSkill(join(tree.project, ".agents", "skills"), "bare-one");
    const lines: AuditEvent[] = [];
    const skillgate = createSkillgate({
      config: tree.config,
      data: tree.data,
      home: tree.home,
      roots: [tree.project],
      builtins: false,
      audit: { record: (event) => void lines.push(event) },
    });
    return { tree, lines, skillgate };
  }
  const capabilityLines = (lines: readonly AuditEvent[]) =>
    lines.filter((line) => line.type === "/skill/discovered" || line.type === "/skill/registration/decided");

  it("writes the manifest's discovery and decision, and not a bare SKILL.md's", async () => {
    const { lines, skillgate } = setUp();
    await skillgate.loadCapabilities();
    const written = capabilityLines(lines);
    expect(written.map((line) => [line.type, line.skillId])).toEqual([
      ["/skill/discovered", "code-review-skill"],
      ["/skill/registration/decided", "code-review-skill"],
    ]);
    const decided = written[1];
    expect(decided).toMatchObject({
      registration: "registered",
      reasons: "registered",
      runtimeGate: "normal",
      scope: { kind: "job", id: "capability-plane" },
      tier: "read",
    });
    expect(written[0]).toMatchObject({ source: "adapter-manifest", skillKind: "workflow_skill" });
    expect(written[0]?.manifestDigest).toMatch(/^[0-9a-f]{16}$/);
    skillgate.close();
  });

  it("writes nothing again for an unchanged reload, and a new decision for a changed manifest", async () => {
    const { tree, lines, skillgate } = setUp();
    await skillgate.loadCapabilities();
    await skillgate.loadCapabilities();
    expect(capabilityLines(lines)).toHaveLength(2);
    const manifest = join(tree.config, "adapters", "code-review-skill.yaml");
    // Disabling the manifest changes its digest and its decision: a new discovery and a new decision.
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(/^enabled: true$/m, "enabled: false"));
    await skillgate.loadCapabilities();
    const written = capabilityLines(lines);
    expect(written).toHaveLength(4);
    expect(written[3]).toMatchObject({ type: "/skill/registration/decided", skillId: "code-review-skill" });
    expect(written[3]?.registration).not.toBe("registered");
    skillgate.close();
  });

  it("writes the lines to the data folder's audit log, readable by the audit reader", async () => {
    const tree = capabilityTree({ seed: true });
    const skillgate = createSkillgate({
      config: tree.config,
      data: tree.data,
      home: tree.home,
      roots: [tree.project],
      builtins: false,
    });
    await skillgate.loadCapabilities();
    skillgate.close();
    const { AuditLog } = await import("../../src/observe/audit-log.js");
    const found = await new AuditLog({ dataFolder: tree.data }).query({
      type: "/skill/registration/decided",
    });
    expect(found.map((event) => event.skillId)).toEqual(["code-review-skill"]);
  });

  it("leaves invocations to the pipeline and reloads to the reloaders", () => {
    const events = new CapabilityEvents(() => new Date("2026-01-02T03:04:05.000Z"));
    const lines: AuditEvent[] = [];
    const stop = auditCapabilityEvents(events, { record: (event) => void lines.push(event) });
    events.emit("/skill/reload_failed", { id: "config-lint-skill", generation: 3, error_kind: "lua_syntax" });
    events.emit("/skill/completed", {
      request_id: "r1",
      trace_id: "t1",
      agent_id: "cli",
      skill_id: "config-lint-skill",
      provider: "config-lint-skill",
      capability: "config.lint",
      skill_kind: "lua_skill",
      runtime_gate: ["normal"],
      generation: 4,
      manifest_digest: "",
    });
    expect(lines).toEqual([]);
    events.emit("/skill/registration/decided", {
      id: "config-lint-skill",
      status: "registered",
      reasons: ["registered"],
      runtime: "normal",
      registered_to: ["normal"],
      detail: "registered",
    });
    stop();
    events.emit("/skill/registration/decided", {
      id: "other",
      status: "registered",
      reasons: ["registered"],
      runtime: "normal",
      registered_to: ["normal"],
      detail: "registered",
    });
    expect(lines).toEqual([
      {
        type: "/skill/registration/decided",
        time: "2026-01-02T03:04:05.000Z",
        requestId: "decided:config-lint-skill",
        scope: { kind: "job", id: "capability-plane" },
        tool: "capability-plane",
        tier: "read",
        skillId: "config-lint-skill",
        registration: "registered",
        reasons: "registered",
        runtimeGate: "normal",
      },
    ]);
  });
});
