import { describe, expect, it } from "vitest";
import { SkillgateError } from "../../../src/core/errors.js";
import { prepareStage } from "../../../src/tools/stages/prepare.js";
import { RUN_SUBJECT, stageContext, stageTool, stateFor } from "./stage-harness.js";

describe("prepare stage", () => {
  it("reads the input once, keeps the prepared input and records the subject as classified", async () => {
    const { tool, prepared } = stageTool({
      prepare: (raw) => ({ ok: true, input: { normalised: raw }, subject: RUN_SUBJECT }),
    });
    const { context, events } = stageContext();
    const result = await prepareStage(stateFor(tool, { a: 1 }), context);
    expect(result.end).toBeUndefined();
    expect(result.state.input).toEqual({ normalised: { a: 1 } });
    expect(result.state.subject).toBe(RUN_SUBJECT);
    expect(prepared).toEqual([{ a: 1 }]);
    expect(events.map((event) => [event.type, event.tier])).toEqual([["tool-call-classified", "change"]]);
  });

  it("input the tool refuses ends the call refused with its HOST: message, about the subject it gave", async () => {
    const { tool } = stageTool({
      prepare: () => ({ ok: false, message: "HOST: the input.n must be an integer.", subject: RUN_SUBJECT }),
    });
    const result = await prepareStage(stateFor(tool, { n: "x" }), stageContext().context);
    expect(result.end).toEqual({
      text: "HOST: the input.n must be an integer.",
      status: "refused",
      errorKind: "invalid_input",
    });
    expect(result.state.subject).toBe(RUN_SUBJECT);
  });

  it("a refusal without a subject is about an unknown change; a prepare that throws fails the call", async () => {
    const refused = await prepareStage(
      stateFor(stageTool({ prepare: () => ({ ok: false, message: "HOST: no." }) }).tool, {}),
      stageContext().context,
    );
    expect(refused.state.subject).toEqual({ tier: "change", summary: "call run_skill_script" });

    class BrokenInput extends SkillgateError {
      constructor() {
        super("invalid_argument", "the input broke", {});
      }
    }
    const { context, events } = stageContext();
    const thrown = await prepareStage(
      stateFor(
        stageTool({
          prepare: () => {
            throw new BrokenInput();
          },
        }).tool,
        {},
      ),
      context,
    );
    expect(thrown.end?.status).toBe("failed");
    expect(thrown.end?.errorKind).toBe("invalid_argument");
    expect(thrown.end?.text).toMatch(/^HOST: run_skill_script could not read its input \(/);
    expect(events).toEqual([]);
  });
});
