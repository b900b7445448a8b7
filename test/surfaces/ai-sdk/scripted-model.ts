import { MockLanguageModelV3 } from "ai/test";

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
/** What the AI SDK sent the model on one step: the prompt, the tools, the settings. */
export type ModelCall = MockLanguageModelV3["doGenerateCalls"][number];

/**
 * One step of a scripted model: a tool call (`input` is sent as JSON text, `rawInput` as
 * given, for input that is not valid JSON), or words that end the loop. `before` runs just
 * before the step is answered, so a test can change the world between two calls.
 */
export type ModelStep =
  | { readonly call: string; readonly input: unknown; readonly before?: () => void }
  | { readonly call: string; readonly rawInput: string; readonly before?: () => void }
  | { readonly say: string };

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/**
 * The AI SDK's mock language model playing `steps` in order, one per step of the loop:
 * the fake sits at the true boundary (the provider); everything else is real. Past the
 * end of the script it says "(done)".
 */
export function scriptedModel(steps: readonly ModelStep[]): MockLanguageModelV3 {
  let next = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const step = steps[next];
      next += 1;
      if (step === undefined || "say" in step) {
        return {
          content: [{ type: "text", text: step?.say ?? "(done)" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      step.before?.();
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: `call-${next}`,
            toolName: step.call,
            input: "rawInput" in step ? step.rawInput : JSON.stringify(step.input),
          },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
  });
}

/** The roles of the messages the model received on one step, in order. */
export function roles(call: ModelCall | undefined): string[] {
  return (call?.prompt ?? []).map((message) => message.role);
}

/** The tool results the model received on one step (the last tool message's parts). */
export function toolOutputsSeen(call: ModelCall | undefined): unknown[] {
  const last = (call?.prompt ?? []).filter((message) => message.role === "tool").at(-1);
  return last === undefined
    ? []
    : last.content.map((part) => (part.type === "tool-result" ? part.output : part));
}
