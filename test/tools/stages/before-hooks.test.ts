import { describe, expect, it } from "vitest";
import { beforeHooksStage } from "../../../src/tools/stages/before-hooks.js";
import { fixedHooks, RUN_SUBJECT, stageContext, stageTool, stateFor } from "./stage-harness.js";

describe("hooks stage (before_tool)", () => {
  it("without hooks the state passes unchanged", async () => {
    const { tool } = stageTool();
    const state = stateFor(tool, { a: 1 }, { input: { a: 1 }, subject: RUN_SUBJECT });
    const result = await beforeHooksStage(state, stageContext().context);
    expect(result).toEqual({ state });
  });

  it("keeps the hooks' verdict for the narrow stage and does not prepare again without new arguments", async () => {
    const { tool, prepared } = stageTool();
    const { hooks } = fixedHooks({ ask: "a person looks first" });
    const state = stateFor(tool, { a: 1 }, { input: { a: 1 }, subject: RUN_SUBJECT });
    const result = await beforeHooksStage(state, stageContext({ hooks }).context);
    expect(result.end).toBeUndefined();
    expect(result.state.verdict).toEqual({ ask: "a person looks first" });
    expect(prepared).toEqual([]);
  });

  it("replaced arguments are prepared and classified again; an invalid replacement is refused", async () => {
    const { tool, prepared } = stageTool({
      prepare: (raw) =>
        (raw as { n?: unknown }).n === "bad"
          ? { ok: false, message: "HOST: n must be a number.", subject: RUN_SUBJECT }
          : { ok: true, input: raw, subject: { ...RUN_SUBJECT, summary: "replaced" } },
    });
    const replacing = stageContext({ hooks: fixedHooks({ args: { n: 2 } }).hooks });
    const state = stateFor(tool, { n: 1 }, { input: { n: 1 }, subject: RUN_SUBJECT });
    const replaced = await beforeHooksStage(state, replacing.context);
    expect(replaced.end).toBeUndefined();
    expect(replaced.state.args).toEqual({ n: 2 });
    expect(replaced.state.input).toEqual({ n: 2 });
    expect(replaced.state.subject.summary).toBe("replaced");
    expect(replacing.events.map((event) => event.type)).toEqual(["tool-call-classified"]);

    const invalid = await beforeHooksStage(
      state,
      stageContext({ hooks: fixedHooks({ args: { n: "bad" } }).hooks }).context,
    );
    expect(invalid.end).toEqual({
      text: "HOST: n must be a number.",
      status: "refused",
      errorKind: "invalid_input",
    });
    expect(prepared).toEqual([{ n: 2 }, { n: "bad" }]);
  });

  it("arguments from a hook that also denied are not used", async () => {
    const { tool, prepared } = stageTool();
    const state = stateFor(tool, { n: 1 }, { input: { n: 1 }, subject: RUN_SUBJECT });
    const result = await beforeHooksStage(
      state,
      stageContext({ hooks: fixedHooks({ deny: "not here", args: { n: 9 } }).hooks }).context,
    );
    expect(result.end).toBeUndefined();
    expect(result.state.args).toEqual({ n: 1 });
    expect(result.state.input).toEqual({ n: 1 });
    expect(prepared).toEqual([]);
  });
});
