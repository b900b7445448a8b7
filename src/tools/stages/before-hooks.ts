import { errorKind, hostText } from "../call-texts.js";
import { type CallStage, end, hookSubject, next, scopeOf } from "./call-state.js";

/**
 * Stage 2, hooks: the `before_tool` hooks (extensions' and shell hooks') see the call. Their
 * verdict is kept for the narrow stage; they can never widen the rules' decision. Arguments
 * a hook replaces (when no hook denied) are read exactly as the model's were: prepared
 * again, classified again, refused when the tool refuses them.
 */
export const beforeHooksStage: CallStage = async (state, context) => {
  const { hooks } = context;
  if (hooks === undefined) return next(state);
  const verdict = await hooks.beforeTool({
    scope: scopeOf(state.scope),
    tool: state.tool.name,
    args: state.args,
    ...hookSubject(state.subject),
  });
  const heard = { ...state, verdict };
  if (verdict.args === undefined || verdict.deny !== undefined) return next(heard);
  const args = verdict.args;
  let prepared: Awaited<ReturnType<typeof state.tool.prepare>>;
  try {
    prepared = await state.tool.prepare(args);
  } catch (error) {
    return end(heard, { text: hostText(error), status: "refused", errorKind: errorKind(error) });
  }
  const subject = prepared.subject ?? heard.subject;
  context.record("tool-call-classified", subject);
  const replaced = { ...heard, args, subject };
  if (!prepared.ok)
    return end(replaced, { text: prepared.message, status: "refused", errorKind: "invalid_input" });
  return next({ ...replaced, input: prepared.input });
};
