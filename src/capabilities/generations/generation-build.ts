import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { LuaCapabilityProvider } from "../lua/lua-provider.js";
import { LuaRuntime, type LuaRuntimeOptions } from "../lua/lua-runtime.js";
import type { InvocationContext } from "../types.js";
import { wideningOf } from "./generation.js";
import type { LoadedLuaManifest } from "./lua-manifest-loader.js";
import type { ReloadStep } from "./reload-events.js";

/**
 * The middle of a reload (hot-reload.ts): a new Lua state for a parsed manifest, the restricted
 * API bound, and its health check run, each step reported as it starts; and what a switch to
 * the new manifest would widen. A generation that fails is closed here: nothing of it outlives
 * the call.
 */

/** The state's bounds and connections a reloader gives every generation. */
export type GenerationRuntimeOptions = Pick<
  LuaRuntimeOptions,
  "memoryLimitBytes" | "instructionLimit" | "invokeAgent" | "log"
>;

/** A built generation, or why it was not built (the step that failed is the last one reported). */
export type GenerationBuild =
  | { readonly ok: true; readonly provider: LuaCapabilityProvider }
  | { readonly ok: false; readonly code: string; readonly detail: string };

/** Loads, binds and health-checks generation `generation` of `manifest`; `onStep` hears each step start. */
export async function buildGeneration(
  manifest: LoadedLuaManifest,
  generation: number,
  runtimeOptions: GenerationRuntimeOptions | undefined,
  onStep: (step: ReloadStep) => void,
): Promise<GenerationBuild> {
  let runtime: LuaRuntime;
  try {
    const source = await readFile(manifest.scriptPath, "utf8");
    runtime = await LuaRuntime.create(
      { ...runtimeOptions, skill: manifest.descriptor.id, source, chunkName: basename(manifest.scriptPath) },
      onStep,
    );
  } catch (error) {
    return { ok: false, code: codeOf(error, "lua_load_failed"), detail: (error as Error).message };
  }
  const provider = new LuaCapabilityProvider(
    manifest.descriptor,
    manifest.permissions,
    manifest.entry,
    runtime,
    generation,
  );
  onStep("health_check");
  const health = await provider.healthCheck(healthContext(manifest, generation));
  if (!health.ok) {
    runtime.close();
    return { ok: false, code: "health_check_failed", detail: health.detail };
  }
  return { ok: true, provider };
}

/** What switching from `previous` to `next` would widen: permissions, runtime gate, transport. */
export function wideningBetween(previous: LoadedLuaManifest, next: LoadedLuaManifest): string[] {
  return wideningOf(
    {
      permissions: previous.permissions,
      runtimeGate: previous.descriptor.runtimeGate,
      transport: previous.transport,
    },
    { permissions: next.permissions, runtimeGate: next.descriptor.runtimeGate, transport: next.transport },
  );
}

/** An error's own string `code`, or `fallback`. */
export function codeOf(error: unknown, fallback: string): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : fallback;
}

/** The context of a health check: no caller, no permissions, never cancelled. */
function healthContext(manifest: LoadedLuaManifest, generation: number): InvocationContext {
  return {
    requestId: `health:${manifest.descriptor.id}@${generation}`,
    traceId: "",
    agentId: "skillgate",
    runtimeMode: manifest.descriptor.runtimeGate.allowedModes[0] ?? "normal",
    signal: new AbortController().signal,
    permissions: { fsRead: [], fsWrite: [], network: false, shell: false, env: [], adapterCapabilities: [] },
    touched: () => undefined,
  };
}
