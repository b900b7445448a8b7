import { describe, expect, it } from "vitest";
import { admittedModes, gateDecision, RUNTIME_GATE_TABLE } from "../../src/capabilities/runtime-gate.js";
import type { RuntimeGate, RuntimeMode, SkillKind } from "../../src/capabilities/types.js";

const gate = (allowedModes: RuntimeMode[], more: Partial<RuntimeGate> = {}): RuntimeGate => ({
  allowedModes,
  disallowTeamWorker: false,
  requiresInteractiveUser: false,
  ...more,
});

describe("runtime gates", () => {
  it("the gate table is seed 004's rows, as data", () => {
    expect(RUNTIME_GATE_TABLE.map((row) => [row.kind, row.row, row.status, row.reason])).toEqual([
      ["workflow_skill", "workflow_admitted", "registered", "registered"],
      ["workflow_skill", "workflow_missing_schema", "display_only", "capability_missing_schema"],
      ["workflow_skill", "workflow_gate_mismatch", "display_only", "runtime_gate_mismatch"],
      ["runtime_worker", "worker_outside_runtime", "display_only", "runtime_worker_display_only"],
      ["runtime_worker", "worker_in_runtime", "registered", "registered"],
      ["lua_skill", "lua_admitted", "registered", "registered"],
      ["lua_skill", "lua_gate_mismatch", "display_only", "runtime_gate_mismatch"],
    ]);
  });

  it("gateDecision finds the row for each kind, gate and runtime", () => {
    const table: ReadonlyArray<[SkillKind, RuntimeGate, RuntimeMode, string, boolean]> = [
      ["workflow_skill", gate(["normal"]), "normal", "workflow_admitted", true],
      ["workflow_skill", gate(["team"]), "normal", "workflow_gate_mismatch", false],
      ["workflow_skill", gate(["normal", "plan"]), "plan", "workflow_admitted", true],
      ["runtime_worker", gate(["team"]), "normal", "worker_outside_runtime", false],
      ["runtime_worker", gate(["team"]), "team", "worker_in_runtime", true],
      ["runtime_worker", gate(["team"]), "job", "worker_outside_runtime", false],
      ["lua_skill", gate(["normal"], { disallowTeamWorker: true }), "normal", "lua_admitted", true],
      [
        "lua_skill",
        gate(["normal", "team"], { disallowTeamWorker: true }),
        "team",
        "lua_gate_mismatch",
        false,
      ],
      [
        "lua_skill",
        gate(["normal", "job"], { requiresInteractiveUser: true }),
        "job",
        "lua_gate_mismatch",
        false,
      ],
    ];
    for (const [kind, runtimeGate, runtime, row, admitted] of table) {
      const decision = gateDecision({ kind, runtimeGate }, runtime);
      expect(
        [decision.row.row, decision.admitted],
        `${kind} ${runtimeGate.allowedModes.join(",")} in ${runtime}`,
      ).toEqual([row, admitted]);
    }
  });

  it("a gate admits its modes less team (disallow_team_worker) and less job and team (requires_interactive_user)", () => {
    expect(admittedModes(gate(["normal", "plan", "job", "team"]))).toEqual(["normal", "plan", "job", "team"]);
    expect(admittedModes(gate(["normal", "team"], { disallowTeamWorker: true }))).toEqual(["normal"]);
    expect(admittedModes(gate(["normal", "plan", "job", "team"], { requiresInteractiveUser: true }))).toEqual(
      ["normal", "plan"],
    );
    expect(admittedModes(gate(["team"], { disallowTeamWorker: true }))).toEqual([]);
  });
});
