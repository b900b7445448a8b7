import type { StopCondition, ToolSet } from "ai";
import { isSkillgateToolResult } from "./tools.js";

/**
 * A `stopWhen` condition: stop the loop after a step in which a skillgate call ended
 * `awaiting_approval` (the approver deferred to the owner). The model was told to make the
 * same call again once it is approved, so there is nothing useful for it to do until then;
 * the host shows the pending request and starts a new loop when the owner has answered.
 *
 * @example generateText({ model, tools, stopWhen: [stepCountIs(10), hasPendingApproval()] })
 */
export function hasPendingApproval<Tools extends ToolSet = ToolSet>(): StopCondition<Tools> {
  return ({ steps }) =>
    steps
      .at(-1)
      ?.toolResults.some(
        (result) => isSkillgateToolResult(result.output) && result.output.status === "awaiting_approval",
      ) ?? false;
}
