import { describeError } from "../core/errors.js";
import { isPlainObject } from "../core/safe-json.js";
import type { Registry } from "../extensions/registry.js";
import type { BeforeToolVerdict, CallHooks } from "./call-hooks.js";
import { HOOK_REASONS } from "./call-texts.js";

/**
 * The broker's hooks over an extension registry: `before_tool` and `after_tool` hooks (the
 * extensions' and the shell hooks'), the approval policy, and the `approval` event. A hook
 * that throws is noted in the registry and ignored; an approval policy that throws denies
 * (a policy that cannot answer must not let a call through).
 */
export function registryHooks(registry: Registry): CallHooks {
  return {
    beforeTool: async (event) => foldBeforeTool(await registry.fire("before_tool", event)),
    afterTool: async (event) =>
      lastResult(
        await registry.fire("after_tool", event, (payload, answer) => ({
          ...payload,
          result: lastResult([answer]) ?? payload.result,
        })),
      ),
    approvalPolicy: async (call) => {
      const policy = registry.approve;
      if (policy === undefined) return undefined;
      let answer: unknown;
      try {
        answer = await policy(call);
      } catch (error) {
        registry.note(`approval policy failed: ${describeError(error)}`);
        return { effect: "deny", reason: HOOK_REASONS.policyFailed };
      }
      if (answer === true || answer === "allow" || answer === undefined) return undefined;
      if (answer === "ask") return { effect: "ask", reason: HOOK_REASONS.policyAsks };
      return { effect: "deny", reason: HOOK_REASONS.policyRefused };
    },
    approvalAsked: async (event) => {
      await registry.fire("approval", event);
    },
  };
}

/**
 * Folds the `before_tool` hooks' answers: a string or `{deny}` denies (reasons joined),
 * `{ask}` asks, `{args}` replaces the arguments (the last hook's win). Other values are
 * ignored: a hook that returns nothing lets the call go on.
 */
export function foldBeforeTool(answers: readonly unknown[]): BeforeToolVerdict {
  const denials: string[] = [];
  const asks: string[] = [];
  let args: Record<string, unknown> | undefined;
  for (const answer of answers) {
    if (typeof answer === "string") {
      if (answer.trim() !== "") denials.push(answer);
      continue;
    }
    if (!isPlainObject(answer)) continue;
    if (typeof answer.deny === "string") denials.push(answer.deny || HOOK_REASONS.emptyDeny);
    if (typeof answer.ask === "string") asks.push(answer.ask || HOOK_REASONS.emptyAsk);
    if (isPlainObject(answer.args)) args = answer.args;
  }
  return {
    ...(denials.length > 0 ? { deny: denials.join("; ") } : {}),
    ...(asks.length > 0 ? { ask: asks.join("; ") } : {}),
    ...(args !== undefined ? { args } : {}),
  };
}

/**
 * The last `after_tool` answer that replaces the result: a string or `{ result }`. The hooks
 * run as a chain, each seeing the result the one before made, so the last rewrite holds them all.
 */
export function lastResult(answers: readonly unknown[]): string | undefined {
  let result: string | undefined;
  for (const answer of answers) {
    if (typeof answer === "string") result = answer;
    else if (isPlainObject(answer) && typeof answer.result === "string") result = answer.result;
  }
  return result;
}
