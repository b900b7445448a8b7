import type { ApprovalAnswer, ApprovalRequest } from "../policy/approvals.js";
import type { Approver, ToolCallResult } from "../tools/broker.js";
import type { Turn } from "../tools/turn.js";

/** One step of a scripted model: a tool call (its input may depend on earlier results), or words. */
export type ScriptedStep =
  | {
      readonly call: string;
      readonly input: unknown | ((earlier: readonly ToolCallResult[]) => unknown);
      readonly before?: () => void | Promise<void>;
    }
  | { readonly say: string };

/** What a scripted model did: each call with its result, and what it said. */
export interface ScriptedTranscript {
  readonly systemPrompt: string;
  readonly calls: ReadonlyArray<{
    readonly tool: string;
    readonly input: unknown;
    readonly result: ToolCallResult;
  }>;
  readonly said: readonly string[];
}

/**
 * A model that follows a script, for tests and examples that drive whole turns without
 * a provider: it reads the turn's skill index as its system prompt, makes the scripted
 * tool calls through the turn (so every call goes through normalisation, the policy,
 * approvals and the audit log), and records the results. A step's `before` hook lets a
 * test change the world mid-turn (edit a skill, disable one).
 */
export class ScriptedModel {
  readonly #steps: readonly ScriptedStep[];

  constructor(steps: readonly ScriptedStep[]) {
    this.#steps = steps;
  }

  /** Plays every step against `turn`. */
  async run(turn: Turn): Promise<ScriptedTranscript> {
    const calls: Array<{ tool: string; input: unknown; result: ToolCallResult }> = [];
    const said: string[] = [];
    for (const step of this.#steps) {
      if ("say" in step) {
        said.push(step.say);
        continue;
      }
      await step.before?.();
      const input =
        typeof step.input === "function"
          ? (step.input as (earlier: readonly ToolCallResult[]) => unknown)(calls.map((call) => call.result))
          : step.input;
      const result = await turn.call(step.call, input);
      calls.push({ tool: step.call, input, result });
    }
    return { systemPrompt: turn.skillIndex(), calls, said };
  }
}

/**
 * An approver that answers from a list, in order, and records every request; past the
 * end of the list it declines.
 */
export function scriptedApprover(
  answers: ReadonlyArray<ApprovalAnswer | "expired">,
): Approver & { readonly requests: ApprovalRequest[] } {
  const queue = [...answers];
  const requests: ApprovalRequest[] = [];
  const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer | "expired"> => {
    requests.push(request);
    return queue.shift() ?? "decline";
  };
  return Object.assign(approver, { requests });
}
