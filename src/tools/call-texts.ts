// What the model is told about a call that did not run or did not end well, and how the
// audit names a failure: the broker's texts, shared with the tools that report errors.
import { isSkillgateError } from "../core/errors.js";
import type { CallStatus } from "../observe/events.js";
import type { PolicyDecision } from "../policy/decide.js";
import type { CallSubject, ToolOutput } from "./tool.js";

/** What the model is told when the person will answer out of band. */
export function awaitingText(requestId: string): string {
  return `HOST: this call needs the owner's approval and did not run. Approval request ${requestId} is waiting; the owner answers it with \`skillgate approve ${requestId}\` (or \`skillgate decline ${requestId}\`). Once it is approved, make exactly the same call again.`;
}

/** What the model is told when a rule denied the call; a withdrawn skill gets the seed's own line. */
export function denialText(decision: PolicyDecision, subject: CallSubject): string {
  if (decision.rule === "disabled-skills-never-run" && subject.skillRunnable === false)
    return "HOST: that skill is no longer enabled.";
  return `HOST: not allowed: ${decision.description} (rule ${decision.rule}).`;
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
