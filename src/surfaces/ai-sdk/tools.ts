import { type Tool, tool } from "ai";
import type { CallStatus } from "../../observe/events.js";
import type { PolicyEffect } from "../../policy/rules.js";
import type { ToolCallResult } from "../../tools/broker.js";
import type { AnyTool } from "../../tools/tool.js";
import type { Turn } from "../../tools/turn.js";
import { type SkillgateToolInput, toolInputSchema } from "./input-schema.js";

/**
 * How one skillgate tool call ended, as the AI SDK records it in `steps[].toolResults[].output`.
 * The model is shown `text` only (see `toModelOutput`); the rest is for the host.
 */
export interface SkillgateToolResult {
  /** What the model sees: the tool's answer, or skillgate's refusal starting with `HOST:`. */
  readonly text: string;
  /**
   * How the call ended. `awaiting_approval`: the approver deferred to the owner, nothing ran,
   * and the model was told to make the same call again once approved.
   */
  readonly status: CallStatus;
  /** The call's id: the `requestId` of its audit events. */
  readonly requestId: string;
  /** The policy rule that decided, when the call got as far as the policy. */
  readonly rule?: string;
  /** What that rule said. */
  readonly decision?: PolicyEffect;
  /** For `awaiting_approval`: the approval request's id, for `skillgate approve ID`. */
  readonly approvalId?: string;
}

/** The call a {@link SkillgateToolResult} answers, for {@link SkillgateToolsOptions.onResult}. */
export interface SkillgateToolCall {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly input: SkillgateToolInput;
}

/** Options of {@link skillgateTools}. */
export interface SkillgateToolsOptions {
  /**
   * Told about every call as it finishes, before the model sees the answer: show a pending
   * approval (`status` `awaiting_approval`), count refusals, stream progress. The call has
   * already ended and been audited; if this throws, the AI SDK records the call as a tool
   * error with that error instead of the result.
   */
  readonly onResult?: (result: SkillgateToolResult, call: SkillgateToolCall) => void | Promise<void>;
}

/** One skillgate tool as an AI SDK tool. */
export type SkillgateTool = Tool<SkillgateToolInput, SkillgateToolResult>;

/** A turn's tools, keyed by name: pass it as `tools` to `generateText` or `streamText`. */
export type SkillgateToolSet = Record<string, SkillgateTool>;

/**
 * A turn's tools as AI SDK tools. Each validates its input against the schema the broker
 * reads (see `toolInputSchema`), runs through the broker with `turn.call` (policy, approval,
 * runner, audit), and answers with a {@link SkillgateToolResult}: refusals and approvals are
 * results, never thrown errors. The model is given the result's text only.
 *
 * Use `turn.skillIndex()` as (part of) the system prompt, so the model knows which skills exist.
 */
export function skillgateTools(turn: Turn, options: SkillgateToolsOptions = {}): SkillgateToolSet {
  const tools: SkillgateToolSet = {};
  for (const definition of turn.tools) tools[definition.name] = aiSdkTool(turn, definition, options);
  return tools;
}

function aiSdkTool(turn: Turn, definition: AnyTool, options: SkillgateToolsOptions): SkillgateTool {
  return tool<SkillgateToolInput, SkillgateToolResult>({
    description: definition.description,
    inputSchema: toolInputSchema(definition),
    execute: async (input, { toolCallId, abortSignal }) => {
      const result = resultOf(
        await turn.call(definition.name, input, abortSignal !== undefined ? { signal: abortSignal } : {}),
      );
      await options.onResult?.(result, { toolName: definition.name, toolCallId, input });
      return result;
    },
    toModelOutput: ({ output }) => ({ type: "text", value: output.text }),
  });
}

function resultOf(result: ToolCallResult): SkillgateToolResult {
  return {
    text: result.text,
    status: result.status,
    requestId: result.requestId,
    ...(result.decision !== undefined
      ? { rule: result.decision.rule, decision: result.decision.effect }
      : {}),
    ...(result.approvalId !== undefined ? { approvalId: result.approvalId } : {}),
  };
}

/** True when `value` is a {@link SkillgateToolResult} (a tool result's `output` is typed loosely in mixed tool sets). */
export function isSkillgateToolResult(value: unknown): value is SkillgateToolResult {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.text === "string" &&
    typeof candidate.status === "string" &&
    typeof candidate.requestId === "string"
  );
}
