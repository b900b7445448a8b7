import { describe, expect, it } from "vitest";
import type { PolicyDecision } from "../../../src/policy/decide.js";
import { narrowStage } from "../../../src/tools/stages/narrow.js";
import { fixedHooks, RUN_SUBJECT, stageContext, stageTool, stateFor } from "./stage-harness.js";

const ALLOW: PolicyDecision = {
  effect: "allow",
  rule: "reads-allowed",
  priority: 30,
  description: "reads run",
};

describe("narrow stage", () => {
  it("without hooks the decision stands and nothing is recorded", async () => {
    const { context, events } = stageContext();
    const result = await narrowStage(stateFor(stageTool().tool, {}, { decision: ALLOW }), context);
    expect(result.end).toBeUndefined();
    expect(result.state.narrowed).toBe(ALLOW);
    expect(events).toEqual([]);
  });

  it("a hook's ask turns allow into ask, recorded as narrowed", async () => {
    const { context, events } = stageContext({ hooks: fixedHooks({ ask: "look first" }).hooks });
    const result = await narrowStage(
      stateFor(
        stageTool().tool,
        {},
        { decision: ALLOW, subject: RUN_SUBJECT, verdict: { ask: "look first" } },
      ),
      context,
    );
    expect(result.end).toBeUndefined();
    expect(result.state.narrowed).toMatchObject({ effect: "ask", rule: "before-tool-hook" });
    expect(result.state.decision).toBe(ALLOW);
    expect(events.map((event) => [event.type, event.decision])).toEqual([["policy-narrowed", "ask"]]);
  });

  it("the approval policy's no ends the call denied with the narrowed decision", async () => {
    const { hooks } = fixedHooks(
      {},
      { approvalPolicy: async () => ({ effect: "deny", reason: "the approval policy refused this call" }) },
    );
    const result = await narrowStage(
      stateFor(stageTool().tool, {}, { decision: ALLOW }),
      stageContext({ hooks }).context,
    );
    expect(result.end).toEqual({
      text: "HOST: not allowed: the approval policy refused this call.",
      status: "denied",
      decision: {
        effect: "deny",
        rule: "approval-policy",
        priority: undefined,
        description: "the approval policy refused this call",
      },
    });
  });

  it("runs only after the decide stage", async () => {
    await expect(narrowStage(stateFor(stageTool().tool, {}), stageContext().context)).rejects.toThrow(
      /decide stage/,
    );
  });
});
