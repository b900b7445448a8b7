import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../../src/app/skillgate.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { silentLogger } from "../../../src/observe/logger.js";
import { isSkillgateToolResult, skillgateTools } from "../../../src/surfaces/ai-sdk/index.js";
import { memoryIndex, NO_PERMISSIONS, provider } from "../../capabilities/helpers/memory-index.js";
import { isolatedFolders, makeTree } from "../../helpers/skill-tree.js";
import { scriptedModel, toolOutputsSeen } from "./scripted-model.js";

/**
 * The AI SDK adapter offers `invoke_capability` by itself whenever capabilities are registered:
 * a scripted model at the provider boundary calls it through the real broker and pipeline.
 */
function skillgateWith(writes: boolean) {
  const tree = makeTree();
  const events: AuditEvent[] = [];
  const review = provider(
    { id: "code-review-skill" },
    (payload) => ({ summary: `reviewed ${String(payload.scope)}`, findings: [] }),
    { permissions: writes ? { ...NO_PERMISSIONS, fsWrite: ["workspace"] } : NO_PERMISSIONS },
  );
  const skillgate = createSkillgate({
    ...isolatedFolders(tree),
    roots: [],
    builtins: false,
    audit: { record: (event) => events.push(event) },
    logger: silentLogger,
    capabilityIndex: memoryIndex([review]),
  });
  return { skillgate, events, review };
}

describe("AI SDK: invoke_capability as a turn tool", () => {
  it("is offered automatically and answers the capability's output", async () => {
    const { skillgate, events } = skillgateWith(false);
    const turn = skillgate.createTurn({ chatId: "chat-cap" });
    const tools = skillgateTools(turn);
    expect(Object.keys(tools)).toContain("invoke_capability");
    const model = scriptedModel([
      {
        call: "invoke_capability",
        input: { capability: "workflow.code_review", payload: { scope: "current_diff" } },
      },
      { say: "Reviewed." },
    ]);
    try {
      const result = await generateText({
        model,
        prompt: "Review my diff.",
        tools,
        stopWhen: stepCountIs(4),
      });
      const output = result.steps[0]?.toolResults[0]?.output;
      expect(isSkillgateToolResult(output) && output.status).toBe("ok");
      expect(isSkillgateToolResult(output) && JSON.parse(output.text)).toEqual({
        summary: "reviewed current_diff",
        findings: [],
      });
      expect(toolOutputsSeen(model.doGenerateCalls[1])).toHaveLength(1);
      expect(events.map((event) => event.type)).toEqual(
        expect.arrayContaining([
          "tool-call-classified",
          "policy-decided",
          "/skill/invoked",
          "/skill/completed",
          "tool-call-finished",
        ]),
      );
      expect(events.find((event) => event.type === "tool-call-classified")?.tier).toBe("read");
    } finally {
      skillgate.close();
    }
  });

  it("is refused in plan mode for a provider that writes, by the broker's policy", async () => {
    const { skillgate, review } = skillgateWith(true);
    const turn = skillgate.createTurn({ chatId: "chat-plan", mode: "plan" });
    const model = scriptedModel([
      {
        call: "invoke_capability",
        input: { capability: "workflow.code_review", payload: { scope: "workspace" } },
      },
      { say: "Could not." },
    ]);
    try {
      const result = await generateText({
        model,
        prompt: "Review.",
        tools: skillgateTools(turn),
        stopWhen: stepCountIs(4),
      });
      const output = result.steps[0]?.toolResults[0]?.output;
      expect(isSkillgateToolResult(output) && output.text).toMatch(/^HOST: /);
      expect(isSkillgateToolResult(output) && output.status).not.toBe("ok");
      expect(review.calls).toEqual([]);
    } finally {
      skillgate.close();
    }
  });

  it("is not offered when nothing is registered", () => {
    const tree = makeTree();
    const skillgate = createSkillgate({
      ...isolatedFolders(tree),
      roots: [],
      builtins: false,
      audit: false,
      logger: silentLogger,
    });
    try {
      expect(Object.keys(skillgateTools(skillgate.createTurn({ chatId: "c" })))).not.toContain(
        "invoke_capability",
      );
    } finally {
      skillgate.close();
    }
  });
});
