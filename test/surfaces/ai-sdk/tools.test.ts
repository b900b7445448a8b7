import { asSchema, generateText, stepCountIs } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hasPendingApproval,
  isSkillgateToolResult,
  type SkillgateToolCall,
  type SkillgateToolResult,
  skillgateTools,
} from "../../../src/surfaces/ai-sdk/index.js";
import { scriptedApprover } from "../../../src/testing/index.js";
import { ARGUMENT_MESSAGES } from "../../../src/tools/arguments.js";
import type { Approver } from "../../../src/tools/broker.js";
import { backupCheckFixture } from "./fixture.js";
import { type ModelStep, scriptedModel, toolOutputsSeen } from "./scripted-model.js";

/** Plays `steps` through generateText over a fresh fixture; one model step per scripted step. */
async function play(steps: readonly ModelStep[], approve: Approver = scriptedApprover([])) {
  const fixture = backupCheckFixture(approve);
  const turn = fixture.skillgate.createTurn({ chatId: "chat-tools" });
  const model = scriptedModel([...steps, { say: "done" }]);
  try {
    const result = await generateText({
      model,
      prompt: "Check the backup.",
      tools: skillgateTools(turn),
      stopWhen: stepCountIs(steps.length + 1),
    });
    const outputs = result.steps.flatMap((step) => step.toolResults.map((each) => each.output));
    // What the model was shown for each call: the tool message of the step after it.
    const seen = steps.map((_, index) => toolOutputsSeen(model.doGenerateCalls[index + 1])[0]);
    return { ...fixture, result, outputs: outputs.filter(isSkillgateToolResult), seen };
  } finally {
    fixture.skillgate.close();
  }
}

const script = { skill: "backup-check", script: "scripts/check.sh" };

describe("skillgateTools", () => {
  it("keys every tool of the turn by name, with its description and its advertised schema", async () => {
    const { skillgate } = backupCheckFixture(scriptedApprover([]));
    try {
      const turn = skillgate.createTurn({ chatId: "chat-tools" });
      const tools = skillgateTools(turn);
      expect(Object.keys(tools)).toEqual(turn.tools.map((tool) => tool.name));
      for (const definition of turn.tools) {
        const tool = tools[definition.name];
        expect(tool?.description).toBe(definition.description);
        const schema = asSchema(tool?.inputSchema);
        expect(await schema.jsonSchema).toEqual(definition.inputSchema);
        expect(schema.validate).toBeTypeOf("function");
      }
    } finally {
      skillgate.close();
    }
  });

  it("lets every input the broker repairs or answers itself through to the broker", async () => {
    const { outputs, seen, events } = await play(
      [
        { call: "run_skill_script", input: { ...script, arguments: null } },
        { call: "run_skill_script", input: { ...script, arguments: [{ target: "nas" }] } },
        { call: "run_skill_script", input: { ...script, arguments: { target: "nas" }, node: 5 } },
        // JSON text holding a prototype-polluting key: the broker parses it and drops the key.
        {
          call: "run_skill_script",
          input: { ...script, arguments: '{"target": "nas", "__proto__": {"polluted": true}}' },
        },
        // draft_skill reads its whole input as JSON text, too.
        { call: "draft_skill", input: '{"name": "x", "description": "d", "body": "b", "sourceChats": []}' },
      ],
      scriptedApprover(["once"]),
    );
    expect(outputs.map((output) => [output.status, output.text])).toEqual([
      ["refused", 'HOST: arguments is missing "target".'],
      ["refused", ARGUMENT_MESSAGES.array],
      ["refused", ARGUMENT_MESSAGES.nodeNotText],
      ["ok", expect.stringContaining('--- stdout ---\nchecked {"target":"nas"}\n')],
      ["refused", 'HOST: draft_skill needs the argument "rationale". [invalid_draft_arguments]'],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(seen.map((output) => (output as { type: string }).type)).toEqual(Array(5).fill("text"));
    const finished = events.filter((event) => event.type === "tool-call-finished");
    expect(finished.map((event) => [event.tool, event.status, event.errorKind])).toEqual([
      ["run_skill_script", "refused", "invalid_input"],
      ["run_skill_script", "refused", "invalid_input"],
      ["run_skill_script", "refused", "invalid_input"],
      ["run_skill_script", "ok", undefined],
      ["draft_skill", "refused", "invalid_input"],
    ]);
  });

  it("refuses a call of the wrong shape at the SDK, with the broker's sentence, before anything is decided", async () => {
    const { outputs, seen, events, result } = await play([
      { call: "load_skill", input: {} },
      { call: "load_skill", input: { skill: "backup-check", extra: 1 } },
      { call: "search_skills", input: { query: 5 } },
      { call: "run_skill_script", input: { skill: "backup-check" } },
      { call: "load_skill", input: '{"skill": "backup-check"}' },
      { call: "load_skill", rawInput: '{"skill": ' },
      { call: "load_skill", rawInput: '{"skill": "backup-check", "__proto__": {"polluted": true}}' },
    ]);
    expect(outputs).toEqual([]);
    expect(events).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(result.steps.slice(0, 7).map((step) => step.content.map((part) => part.type))).toEqual(
      Array(7).fill(["tool-call", "tool-error"]),
    );
    const errors = seen.map((output) => output as { type: string; value: string });
    expect(errors.every((output) => output.type === "error-text")).toBe(true);
    // The model is shown the broker's own sentence; JSON the SDK cannot parse never gets that far.
    expect(errors.map((output) => output.value.match(/HOST: .*$/)?.[0] ?? output.value)).toEqual([
      'HOST: the input is missing "skill".',
      'HOST: the input has a field "extra" that is not allowed.',
      "HOST: the input.query must be a string.",
      'HOST: the input is missing "script".',
      "HOST: the input must be an object.",
      expect.stringContaining("JSON parsing failed"),
      expect.stringContaining("Object contains forbidden prototype property"),
    ]);
  });

  it("answers refusals, declines and misses as tool results, never as thrown errors", async () => {
    const { outputs, result } = await play([
      { call: "load_skill", input: { skill: "nope" } },
      { call: "read_skill_resource", input: { skill: "backup-check", path: "../../etc/passwd" } },
      { call: "run_skill_script", input: { ...script, arguments: { target: "nas" } } },
    ]);
    expect(result.steps.slice(0, 3).map((step) => step.content.map((part) => part.type))).toEqual(
      Array(3).fill(["tool-call", "tool-result"]),
    );
    expect(outputs.map((output) => output.text.split("\n")[0])).toEqual([
      'HOST: there is no skill named "nope". Skills you can use: backup-check.',
      'HOST: path may not contain "..", "." or empty parts.',
      "HOST: the person declined this call; it did not run. Do not retry it unless they ask.",
    ]);
    expect(outputs[2]).toMatchObject({ status: "declined", rule: "changes-ask", decision: "ask" });
  });

  it("a deferred approval is a result the host acts on: onResult hears it and hasPendingApproval ends the loop", async () => {
    const fixture = backupCheckFixture(async () => "deferred");
    const turn = fixture.skillgate.createTurn({ chatId: "chat-deferred" });
    const heard: Array<[SkillgateToolResult, SkillgateToolCall]> = [];
    const model = scriptedModel([
      { call: "run_skill_script", input: { ...script, arguments: { target: "nas" } } },
      { say: "never asked for" },
    ]);
    try {
      const result = await generateText({
        model,
        prompt: "Check the backup.",
        tools: skillgateTools(turn, { onResult: (output, call) => void heard.push([output, call]) }),
        stopWhen: [stepCountIs(5), hasPendingApproval()],
      });
      expect(model.doGenerateCalls).toHaveLength(1);
      const output = result.steps[0]?.toolResults[0]?.output;
      const [pending] = fixture.skillgate.broker.approvals.pending();
      expect(pending?.summary).toBe("run scripts/check.sh of backup-check (local)");
      expect(isSkillgateToolResult(output) && output).toMatchObject({
        status: "awaiting_approval",
        rule: "changes-ask",
        text: expect.stringMatching(/^HOST: this call needs the owner's approval and did not run\./),
      });
      expect(isSkillgateToolResult(output) && output.text).toContain(
        `Approval request ${pending?.id} is waiting`,
      );
      expect(heard).toEqual([
        [
          output,
          {
            toolName: "run_skill_script",
            toolCallId: "call-1",
            input: { ...script, arguments: { target: "nas" } },
          },
        ],
      ]);
      expect(fixture.events.map((event) => [event.type, event.answer ?? event.status ?? null])).toEqual([
        ["tool-call-classified", null],
        ["policy-decided", null],
        ["approval-requested", null],
        ["approval-answered", "deferred"],
        ["tool-call-finished", "awaiting_approval"],
      ]);
    } finally {
      fixture.skillgate.close();
    }
  });

  it("whatever the SDK refuses, the broker refuses too (the same sentence for tools read against their schema)", async () => {
    const { skillgate } = backupCheckFixture(scriptedApprover([]));
    try {
      const turn = skillgate.createTurn({ chatId: "chat-fuzz" });
      const tools = skillgateTools(turn);
      const call = fc.constantFrom(...turn.tools).chain((tool) => {
        const names = [...Object.keys((tool.inputSchema.properties as object | undefined) ?? {}), "extra"];
        const object = fc.dictionary(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 4,
        });
        return fc.tuple(fc.constant(tool), fc.oneof(object, fc.jsonValue({ maxDepth: 1 })));
      });
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(call, async ([tool, input]) => {
          const validated = await asSchema(tools[tool.name]?.inputSchema).validate?.(input);
          if (validated === undefined || validated.success) return;
          refused += 1;
          const answer = await turn.call(tool.name, input);
          expect(["refused", "failed"]).toContain(answer.status);
          expect(answer.text).toMatch(/^HOST: /);
          // draft_skill and edit_skill read their input with their own strict reader and words.
          if (tool.name !== "draft_skill" && tool.name !== "edit_skill")
            expect(answer.text).toBe(validated.error.message);
        }),
        { numRuns: 300 },
      );
      expect(refused).toBeGreaterThan(50);
    } finally {
      skillgate.close();
    }
  });
});
