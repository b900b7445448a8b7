import { describe, expect, it } from "vitest";
import { samplingEntryProvider } from "../../../src/capabilities/entries/sampling-entry.js";
import type { Caller } from "../../../src/capabilities/pipeline/invocation.js";
import { CapabilityPipeline } from "../../../src/capabilities/pipeline/invoke.js";
import type { Sampler } from "../../../src/capabilities/types.js";
import { CODE_REVIEW_OUTPUT, descriptor, memoryIndex, NO_PERMISSIONS } from "../helpers/memory-index.js";

const BODY = "# Code review\nReview the diff and list findings.";

function pipeline(maxPromptBytes = 100_000) {
  const provider = samplingEntryProvider({
    descriptor: descriptor({
      id: "code-review-skill",
      limits: { timeoutMs: 5_000, maxConcurrency: 1, maxPromptBytes },
    }),
    permissions: NO_PERMISSIONS,
    body: () => BODY,
    outputSchema: CODE_REVIEW_OUTPUT as never,
  });
  return new CapabilityPipeline({ index: memoryIndex([provider]) });
}

const caller: Caller = {
  kind: "mcp",
  agentId: "mcp-1",
  runtimeMode: "normal",
  interactive: true,
  scope: { kind: "chat", id: "mcp-1" },
};

describe("sampling entry", () => {
  it("sends the skill's body and the payload to the client's model and answers its JSON", async () => {
    const asked: Array<Parameters<Sampler>[0]> = [];
    const sample: Sampler = async (request) => {
      asked.push(request);
      return '```json\n{"summary": "looks fine", "findings": []}\n```';
    };
    const result = await pipeline().invoke(
      { capability: "workflow.code_review", payload: { scope: "current_diff" } },
      { ...caller, sample },
    );
    expect(result.ok && result.output).toEqual({ summary: "looks fine", findings: [] });
    expect(asked[0]?.system).toBe(BODY);
    expect(asked[0]?.prompt).toContain('{"scope":"current_diff"}');
  });

  it("refuses a caller whose client cannot sample with sampling_unavailable", async () => {
    const result = await pipeline().invoke(
      { capability: "workflow.code_review", payload: { scope: "workspace" } },
      caller,
    );
    expect(!result.ok && result.refusal.code).toBe("sampling_unavailable");
    expect(!result.ok && result.refusal.message).toMatch(/^HOST: /);
    expect(result.record.status).toBe("refused");
  });

  it("refuses a prompt over max_prompt_bytes with prompt_too_large, sending nothing", async () => {
    let sent = false;
    const result = await pipeline(10).invoke(
      { capability: "workflow.code_review", payload: { scope: "workspace" } },
      {
        ...caller,
        sample: async () => {
          sent = true;
          return "{}";
        },
      },
    );
    expect(!result.ok && result.refusal.code).toBe("prompt_too_large");
    expect(sent).toBe(false);
  });

  it("refuses a reply outside the output schema, or not JSON, with output_invalid", async () => {
    for (const reply of ['{"summary": 5}', "I think it is fine."]) {
      const result = await pipeline().invoke(
        { capability: "workflow.code_review", payload: { scope: "workspace" } },
        { ...caller, sample: async () => reply },
      );
      expect(!result.ok && result.refusal.code).toBe("output_invalid");
    }
  });
});
