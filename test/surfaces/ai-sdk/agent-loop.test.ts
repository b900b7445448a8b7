import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { isSkillgateToolResult, skillgateTools } from "../../../src/surfaces/ai-sdk/index.js";
import { scriptedApprover } from "../../../src/testing/index.js";
import { backupCheckFixture } from "./fixture.js";
import { roles, scriptedModel, toolOutputsSeen } from "./scripted-model.js";

const run = {
  call: "run_skill_script",
  // The model got the arguments wrong: JSON text instead of an object. skillgate repairs it.
  input: { skill: "backup-check", script: "scripts/check.sh", arguments: '{"target": "nas"}' },
};

/**
 * A whole agent loop through the AI SDK: its real `generateText`, a scripted model at the
 * provider boundary, and everything else real: a skill in a temporary project, the policy,
 * approvals, the chat database, and the local runner running the script as a child process.
 */
describe("an AI SDK agent loop over skillgate's tools", () => {
  it("searches, loads, runs with repaired arguments, is asked once for always, and asked again after an edit", async () => {
    const approve = scriptedApprover(["always-chat", "once"]);
    const { skillgate, events, folder } = backupCheckFixture(approve);
    const script = join(folder, "scripts", "check.sh");
    const model = scriptedModel([
      { call: "search_skills", input: { query: "backup finished" } },
      { call: "load_skill", input: { skill: "backup-check" } },
      run,
      run,
      // One byte of the skill changes: its hash changes, so the "always" grant no longer covers it.
      {
        ...run,
        before: () => writeFileSync(script, readFileSync(script, "utf8").replace("checked", "Checked")),
      },
      { say: "The backup on nas finished." },
    ]);
    const turn = skillgate.createTurn({ chatId: "chat-ai-sdk" });
    try {
      const result = await generateText({
        model,
        system: `You are a helpful assistant.\n\n${turn.skillIndex()}`,
        prompt: "Did last night's backup of the nas finish?",
        tools: skillgateTools(turn),
        stopWhen: stepCountIs(10),
      });

      // The model was called once per step; each time with the whole conversation so far.
      const calls = model.doGenerateCalls;
      expect(calls).toHaveLength(6);
      expect(roles(calls[0])).toEqual(["system", "user"]);
      for (let step = 1; step < 6; step += 1)
        expect(roles(calls[step])).toEqual([
          "system",
          "user",
          ...Array(step).fill(["assistant", "tool"]).flat(),
        ]);
      const system = calls[0]?.prompt[0];
      expect(system?.role === "system" && system.content).toContain(
        "`backup-check` -- Check that last night's backup finished.",
      );

      // The model was offered every tool of the turn, with the advertised schemas.
      const offered = (calls[0]?.tools ?? []).map((tool) => tool.name);
      expect(offered).toEqual(turn.tools.map((tool) => tool.name));
      const runTool = calls[0]?.tools?.find((tool) => tool.name === "run_skill_script");
      expect(runTool?.type === "function" && runTool.inputSchema.properties?.arguments).toMatchObject({
        type: "object",
        properties: { argv: { type: "array", items: { type: "string" } } },
      });

      // The assistant's own call is recorded as it made it (the SDK did not rewrite the input).
      const assistant = calls[3]?.prompt.at(-2);
      expect(assistant?.role === "assistant" && assistant.content[0]).toMatchObject({
        type: "tool-call",
        toolName: "run_skill_script",
        input: run.input,
      });

      // The model saw text only: no status, no request id.
      expect(toolOutputsSeen(calls[1])).toEqual([
        { type: "text", value: "- `backup-check` -- Check that last night's backup finished." },
      ]);
      expect(toolOutputsSeen(calls[2])[0]).toMatchObject({
        type: "text",
        value: expect.stringMatching(/^<skill name="backup-check">/),
      });
      expect(toolOutputsSeen(calls[3])[0]).toMatchObject({
        type: "text",
        value: expect.stringMatching(
          /^exit code 0 \(ok, \d+ ms\)\n--- stdout ---\nchecked \{"target":"nas"\}\n$/,
        ),
      });
      expect(toolOutputsSeen(calls[5])[0]).toMatchObject({
        value: expect.stringContaining('--- stdout ---\nChecked {"target":"nas"}'),
      });

      // The host gets each result typed: status, the rule that decided, the request id.
      const outputs = result.steps
        .flatMap((step) => step.toolResults.map((each) => each.output))
        .filter(isSkillgateToolResult);
      expect(outputs).toHaveLength(5);
      expect(outputs.map((output) => [output.status, output.rule])).toEqual([
        ["ok", "reads-allowed"],
        ["ok", "reads-allowed"],
        ["ok", "changes-ask"],
        ["ok", "granted-calls-allowed"],
        ["ok", "changes-ask"],
      ]);
      expect(result.text).toBe("The backup on nas finished.");

      // Asked twice: "always" for the first run, then again for the edited skill.
      expect(approve.requests.map((request) => request.summary)).toEqual([
        "run scripts/check.sh of backup-check (local)",
        "run scripts/check.sh of backup-check (local)",
      ]);
      expect(approve.requests[1]?.grant).not.toBe(approve.requests[0]?.grant);

      // The audit trail: every step of every call, tied together by the result's request id.
      const byCall = outputs.map((output) =>
        events.filter((event) => event.requestId === output.requestId).map((event) => event.type),
      );
      const read = ["tool-call-classified", "policy-decided", "tool-call-finished"];
      const asked = [
        "tool-call-classified",
        "policy-decided",
        "approval-requested",
        "approval-answered",
        "tool-call-finished",
      ];
      expect(byCall).toEqual([read, read, asked, read, asked]);
      expect(events.every((event) => event.scope.id === "chat-ai-sdk")).toBe(true);
      const answers = events
        .filter((event) => event.type === "approval-answered")
        .map((event) => event.answer);
      expect(answers).toEqual(["always-chat", "once"]);
      const hashes = events
        .filter((event) => event.type === "tool-call-finished" && event.tool === "run_skill_script")
        .map((event) => event.hash8);
      expect(hashes[0]).toBe(hashes[1]);
      expect(hashes[2]).not.toBe(hashes[1]);
      expect(JSON.stringify(events)).not.toContain("nas");
    } finally {
      skillgate.close();
    }
  });
});
