import { errorKind, unreadableInputText } from "../call-texts.js";
import { type CallStage, end, next, unknownSubject } from "./call-state.js";

/**
 * Stage 1, prepare: the tool reads the model's input once (normalising and validating it;
 * a skill tool looks its skill up in the catalog here) and says what the call is about.
 * The subject is recorded as `tool-call-classified`. A tool that throws fails the call;
 * input it refuses ends the call `refused` with its `HOST:` message.
 */
export const prepareStage: CallStage = async (state, context) => {
  let prepared: Awaited<ReturnType<typeof state.tool.prepare>>;
  try {
    prepared = await state.tool.prepare(state.raw);
  } catch (error) {
    return end(state, {
      text: unreadableInputText(state.tool.name, error),
      status: "failed",
      errorKind: errorKind(error),
    });
  }
  const subject = prepared.subject ?? unknownSubject(state.tool);
  context.record("tool-call-classified", subject);
  const classified = { ...state, subject };
  if (!prepared.ok)
    return end(classified, {
      text: prepared.message,
      status: "refused",
      errorKind: prepared.code ?? "invalid_input",
    });
  return next({ ...classified, input: prepared.input });
};
