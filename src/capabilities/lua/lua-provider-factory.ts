import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { ProviderFactory } from "../registry.js";
import type { InvocationContext } from "../types.js";
import { LuaCapabilityProvider } from "./lua-provider.js";
import { LuaRuntime, type LuaRuntimeOptions } from "./lua-runtime.js";

/**
 * The registry's factory for `lua_skill` descriptors (entry type `lua`): the first
 * generation of each, its state made and its `health_check` run before it is registered. A
 * load error or a failed health check rejects the build, so the registry leaves the skill out
 * (`provider_failed`). Later generations come from the hot reloader.
 */
export function luaProviderFactory(
  options: Pick<LuaRuntimeOptions, "memoryLimitBytes" | "instructionLimit" | "invokeAgent" | "log"> = {},
): ProviderFactory {
  return {
    name: "lua",
    accepts: (descriptor) => descriptor.kind === "lua_skill" && descriptor.entry?.type === "lua",
    create: async ({ descriptor, permissions }) => {
      const entry = descriptor.entry;
      if (entry?.type !== "lua") throw new Error(`${descriptor.id} is not a Lua skill`);
      const runtime = await LuaRuntime.create({
        ...options,
        skill: descriptor.id,
        source: await readFile(entry.script, "utf8"),
        chunkName: basename(entry.script),
      });
      const provider = new LuaCapabilityProvider(
        descriptor,
        permissions,
        {
          entry: entry.entry,
          ...(entry.healthCheck === undefined ? {} : { healthCheck: entry.healthCheck }),
        },
        runtime,
        1,
      );
      const health = await provider.healthCheck(healthContext(descriptor.id));
      if (!health.ok) {
        runtime.close();
        throw new Error(`health_check_failed: ${health.detail}`);
      }
      return provider;
    },
  };
}

function healthContext(id: string): InvocationContext {
  return {
    requestId: `health:${id}@1`,
    traceId: "",
    agentId: "skillgate",
    runtimeMode: "normal",
    signal: new AbortController().signal,
    permissions: { fsRead: [], fsWrite: [], network: false, shell: false, env: [], adapterCapabilities: [] },
    touched: () => undefined,
  };
}
