import { describe, expect, it } from "vitest";
import type { PolicyDecision } from "../../../src/policy/decide.js";
import { afterHooksStage } from "../../../src/tools/stages/after-hooks.js";
import { executeStage } from "../../../src/tools/stages/execute.js";
import { fixedHooks, RUN_SUBJECT, stageContext, stageTool, stateFor } from "./stage-harness.js";

const ALLOW: PolicyDecision = {
  effect: "allow",
  rule: "reads-allowed",
  priority: 30,
  description: "reads run",
};

describe("execute stage", () => {
  it("runs the prepared input (not the raw one) and keeps its output for the after-hooks stage", async () => {
    const { tool, ran } = stageTool({ execute: async () => ({ text: "exit 3", status: "failed" }) });
    const state = stateFor(tool, "raw text", { input: { parsed: true }, decision: ALLOW });
    const result = await executeStage(state, stageContext().context);
    expect(ran).toEqual([{ parsed: true }]);
    expect(result.end).toBeUndefined();
    expect(result.state.output).toEqual({ text: "exit 3", status: "failed" });
  });

  it("plain text is ok; a tool that throws fails the call with a HOST: line", async () => {
    const plain = await executeStage(
      stateFor(stageTool().tool, {}, { decision: ALLOW }),
      stageContext().context,
    );
    expect(plain.state.output).toEqual({ text: "ran", status: "ok" });

    const { tool } = stageTool({
      execute: async () => {
        throw new TypeError("disk gone");
      },
    });
    const thrown = await executeStage(stateFor(tool, {}, { decision: ALLOW }), stageContext().context);
    expect(thrown.end).toEqual({
      text: "HOST: run_skill_script failed: TypeError: disk gone",
      status: "failed",
      decision: ALLOW,
      errorKind: "TypeError",
    });
  });
});

describe("after-hooks stage", () => {
  const ran = { decision: ALLOW, subject: RUN_SUBJECT, output: { text: "out", status: "ok" as const } };

  it("ends the call with the tool's output, or the hooks' rewrite of its text", async () => {
    const plain = await afterHooksStage(stateFor(stageTool().tool, {}, ran), stageContext().context);
    expect(plain.end).toEqual({ text: "out", status: "ok", decision: ALLOW });

    const { hooks } = fixedHooks({}, { afterTool: async (event) => `${event.result} (checked)` });
    const rewritten = await afterHooksStage(
      stateFor(stageTool().tool, {}, ran),
      stageContext({ hooks }).context,
    );
    expect(rewritten.end).toEqual({ text: "out (checked)", status: "ok", decision: ALLOW });
  });

  it("a hook chain that throws fails the call as the tool failing would", async () => {
    const { hooks } = fixedHooks(
      {},
      {
        afterTool: async () => {
          throw new Error("hook broke");
        },
      },
    );
    const failed = await afterHooksStage(
      stateFor(stageTool().tool, {}, ran),
      stageContext({ hooks }).context,
    );
    expect(failed.end).toMatchObject({
      text: "HOST: run_skill_script failed: Error: hook broke",
      status: "failed",
    });
  });
});
