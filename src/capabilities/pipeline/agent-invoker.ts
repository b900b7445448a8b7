import type { JsonValue } from "../../core/safe-json.js";
import type { InvocationContext } from "../types.js";
import { CapabilityError, nestedCaller } from "./invocation.js";
import type { CapabilityPipeline } from "./invoke.js";

/**
 * The pipeline as a Lua skill's `ctx.tools.invoke_agent` reaches it (the Lua runtime's
 * `AgentInvoker`): the nested call takes every step again, as a `lua_skill` caller limited to
 * the serving provider's effective adapter capabilities (`nestedCaller`), in the parent call's
 * runtime mode, trace, scope and workspace, stopped with the parent. It answers the output
 * that passed its schema, or throws a {@link CapabilityError} with the pipeline's code.
 */
export function pipelineAgentInvoker(pipeline: CapabilityPipeline): (
  request: {
    readonly capability: string;
    readonly provider?: string;
    readonly payload: { readonly [key: string]: JsonValue };
    readonly timeoutMs?: number;
  },
  parent: InvocationContext,
) => Promise<JsonValue> {
  return async (request, parent) => {
    const result = await pipeline.invoke(request, nestedCaller(parent), "ctx.tools.invoke_agent");
    if (!result.ok) throw new CapabilityError(request.capability, result.refusal);
    return result.output;
  };
}
