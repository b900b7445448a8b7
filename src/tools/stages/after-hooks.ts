import { errorKind, failedText } from "../call-texts.js";
import {
  type CallContext,
  type CallEnd,
  type CallState,
  end,
  hookSubject,
  requireDecision,
  scopeOf,
} from "./call-state.js";

/**
 * Stage 7, after-hooks: the `after_tool` hooks see the result and may rewrite its text
 * (the status stays the tool's). The last stage: it always ends the call. Hooks that throw
 * fail the call as the tool failing would.
 */
export async function afterHooksStage(
  state: CallState,
  context: CallContext,
): Promise<{ readonly state: CallState; readonly end: CallEnd }> {
  const decision = requireDecision(state);
  const output = state.output;
  if (output === undefined) throw new Error(`${state.tool.name}: the after-hooks stage ran before execute`);
  try {
    const rewritten = await context.hooks?.afterTool({
      scope: scopeOf(state.scope),
      tool: state.tool.name,
      args: state.args,
      ...hookSubject(state.subject),
      result: output.text,
      status: output.status,
    });
    return end(state, { text: rewritten ?? output.text, status: output.status, decision });
  } catch (error) {
    return end(state, {
      text: failedText(state.tool.name, error),
      status: "failed",
      decision,
      errorKind: errorKind(error),
    });
  }
}
