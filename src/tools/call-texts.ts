// What the model is told about a call that did not run or did not end well, and how the
// audit names a failure: the broker's texts, shared with the tools that report errors.
// Every text the broker (src/tools/broker.ts and its stages) builds for the model is here;
// the argument table's exact messages are in arguments.ts (see docs/tools.md).
import { describeError, isSkillgateError } from "../core/errors.js";
import type { CallStatus } from "../observe/events.js";
import type { PolicyDecision } from "../policy/decide.js";
import type { RetryFrom } from "./stages/call-types.js";
import type { CallSubject, ToolOutput } from "./tool.js";

/** Where the model's retry must come from, as the end of {@link awaitingText}. */
const RETRY_FROM: Readonly<Record<RetryFrom, string>> = {
  "same-chat": "Once it is approved, make exactly the same call again.",
  "same-mcp-session":
    "Once it is approved, make exactly the same call again from this same MCP session: the approval belongs to this session, so a call from another session or after a reconnect is asked about again.",
};

/** What the model is told when the person will answer out of band. */
export function awaitingText(requestId: string, retryFrom: RetryFrom = "same-chat"): string {
  return `HOST: this call needs the owner's approval and did not run. Approval request ${requestId} is waiting; the owner answers it with \`skillgate approve ${requestId}\` (or \`skillgate decline ${requestId}\`). ${RETRY_FROM[retryFrom]}`;
}

/** What the model is told when nobody answered the approval request in time. */
export function expiredText(): string {
  return "HOST: the approval request expired before anyone answered; the call did not run.";
}

/** What the model is told when the person declined. */
export function declinedText(): string {
  return "HOST: the person declined this call; it did not run. Do not retry it unless they ask.";
}

/** What the model is told when a rule denied the call; a withdrawn skill gets the seed's own line. */
export function denialText(decision: PolicyDecision, subject: CallSubject): string {
  if (decision.rule === "disabled-skills-never-run" && subject.skillRunnable === false)
    return "HOST: that skill is no longer enabled.";
  return `HOST: not allowed: ${decision.description} (rule ${decision.rule}).`;
}

/** What the model is told when a hook or the approval policy narrowed the decision to deny. */
export function narrowedDenialText(narrowed: PolicyDecision): string {
  return `HOST: not allowed: ${narrowed.description}.`;
}

/** What the model is told when a tool threw while reading its input. */
export function unreadableInputText(tool: string, error: unknown): string {
  return `HOST: ${tool} could not read its input (${describeError(error)}).`;
}

/** What the model is told when a tool (or an `after_tool` hook) threw while running. */
export function failedText(tool: string, error: unknown): string {
  return `HOST: ${tool} failed: ${describeError(error)}`;
}

/**
 * The reasons hooks and the approval policy give, as a narrowed decision's description
 * (shown in {@link narrowedDenialText}, and to the person asked).
 */
export const HOOK_REASONS = {
  /** A `before_tool` hook's own reason, marked as a hook's. */
  beforeTool: (reason: string) => `${reason} (a before_tool hook)`,
  /** A `before_tool` hook that denied with an empty reason. */
  emptyDeny: "a hook refused it",
  /** A `before_tool` hook that asked with an empty reason. */
  emptyAsk: "a hook asks a person first",
  policyFailed: "the approval policy failed, so the call is refused",
  policyAsks: "the approval policy asks a person first",
  policyRefused: "the approval policy refused this call",
} as const;

/** What the model is told when it calls a tool the turn does not have. */
export function unknownToolText(name: string, tools: readonly string[]): string {
  return `HOST: there is no tool named ${JSON.stringify(name)}. Tools: ${tools.join(", ")}.`;
}

/** A tool's output as text and status (plain text means `ok`). */
export function splitOutput(output: ToolOutput): { text: string; status: CallStatus } {
  return typeof output === "string" ? { text: output, status: "ok" } : output;
}

/** An error as a model sees it: skillgate's own refusals already start with HOST:. */
export function hostText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = message.startsWith("HOST:") ? message : `HOST: ${message}`;
  return isSkillgateError(error) && !text.includes(`[${error.code}]`) ? `${text} [${error.code}]` : text;
}

/** The audit's name for a failure: a stable code for skillgate's own errors, else the error's class name. */
export function errorKind(error: unknown): string {
  if (isSkillgateError(error)) return error.code;
  return error instanceof Error ? error.name : "unknown";
}
