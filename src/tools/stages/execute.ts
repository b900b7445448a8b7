import { errorKind, failedText, splitOutput } from "../call-texts.js";
import { type CallStage, end, next, requireDecision } from "./call-state.js";

/**
 * Stage 6, execute: the tool runs with the prepared input, the request id, the scope and
 * the call's signal. Its output (text, and a status when not simply `ok`) is kept for the
 * after-hooks stage; a tool that throws fails the call with a `HOST:` line.
 */
export const executeStage: CallStage = async (state) => {
  const decision = requireDecision(state);
  try {
    const output = await state.tool.execute(state.input, {
      requestId: state.requestId,
      scope: { kind: state.scope.kind, id: state.scope.id },
      ...(state.options.signal ? { signal: state.options.signal } : {}),
      ...(state.options.sample ? { sample: state.options.sample } : {}),
    });
    return next({ ...state, output: splitOutput(output) });
  } catch (error) {
    return end(state, {
      text: failedText(state.tool.name, error),
      status: "failed",
      decision,
      errorKind: errorKind(error),
    });
  }
};
