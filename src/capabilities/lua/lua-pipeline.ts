import type { JsonValue } from "../../core/safe-json.js";
import { nestedCaller } from "../pipeline/invocation.js";
import type { CapabilityPipeline } from "../pipeline/invoke.js";
import { HostApiRefusal } from "./lua-errors.js";
import type { AgentInvoker } from "./lua-host-api.js";

/**
 * `ctx.tools.invoke_agent` through the one invocation pipeline: the nested call's caller is
 * the Lua skill's provider (`nestedCaller`: a `lua_skill` caller limited to its effective
 * adapter capabilities, in the outer call's runtime, trace, scope and workspace), so the
 * payload guard, schemas, limits and audit apply to it as to any call. A refusal comes back
 * into Lua as an error carrying the pipeline's code (`payload_skill_path`, …).
 */
export function pipelineInvoker(pipeline: CapabilityPipeline | (() => CapabilityPipeline)): AgentInvoker {
  return async (request, parent, provider): Promise<JsonValue> => {
    if (provider === undefined)
      throw new HostApiRefusal("lua_host_refused", "ctx.tools.invoke_agent is only available inside a call");
    const target = typeof pipeline === "function" ? pipeline() : pipeline;
    const result = await target.invoke(
      {
        capability: request.capability,
        ...(request.provider === undefined ? {} : { provider: request.provider }),
        payload: request.payload,
        ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
      },
      nestedCaller(parent, provider),
      "ctx.tools.invoke_agent",
    );
    if (!result.ok) throw new HostApiRefusal(result.refusal.code, result.refusal.message);
    return result.output;
  };
}
