import {
  samplingEntryFactory,
  scriptEntryFactory,
  skillsByFolder,
} from "../capabilities/entries/entry-factories.js";
import type { CapabilityEventSink } from "../capabilities/events.js";
import type { CapabilityPipeline } from "../capabilities/pipeline/invoke.js";
import {
  buildSnapshot,
  type CapabilityRegistry,
  type ProviderFactory,
  type ProviderFailure,
} from "../capabilities/registry.js";
import type { Runner } from "../runners/contract.js";
import { inspectSetupCapabilities } from "./capability-setup.js";
import type { CatalogSetup } from "./catalog-setup.js";

/**
 * Fills the capability registry of a Skillgate: the catalog's and the manifests' candidates
 * are discovered and decided (capability-setup.ts), each providable decision becomes a
 * provider through the factory that accepts it (the script and sampling entries here, and
 * any given, such as the Lua runtime's), and the registry is switched to the new index as a
 * whole. A provider that cannot be built is left out and reported; nothing throws.
 */

/** What one load registered and left out. */
export interface CapabilityLoad {
  readonly registered: number;
  readonly failures: readonly ProviderFailure[];
}

/** The collaborators of {@link loadCapabilityPlane}. */
export interface CapabilityPlaneParts {
  readonly setup: CatalogSetup;
  readonly registry: CapabilityRegistry;
  readonly runner: Runner;
  readonly events?: CapabilityEventSink;
  /** Factories besides the script and sampling entries' (the Lua runtime's). */
  readonly factories?: readonly ProviderFactory[];
}

/** Discovers, decides, builds and switches the registry once. */
export async function loadCapabilityPlane(parts: CapabilityPlaneParts): Promise<CapabilityLoad> {
  const catalog = parts.setup.catalog;
  const inspection = inspectSetupCapabilities(parts.setup, {
    ...(parts.events !== undefined ? { events: parts.events } : {}),
  });
  const skillOf = skillsByFolder(() => catalog.discover().skills);
  const factories = [
    scriptEntryFactory({ runner: parts.runner, skillOf }),
    samplingEntryFactory({ skillOf }),
    ...(parts.factories ?? []),
  ];
  const { snapshot, failures } = await buildSnapshot(
    inspection.decisions,
    factories,
    catalog.config.capabilities,
  );
  parts.registry.switch(snapshot);
  return { registered: snapshot.entries.length, failures };
}

/**
 * The Lua runtime's factory, loaded only when a `lua_skill` is to be built: wasmoon and the
 * runtime are imported on the first Lua descriptor, never by a process without one. Its
 * `ctx.tools.invoke_agent` goes through `pipeline`, the same one every door takes.
 */
export function lazyLuaProviderFactory(pipeline: () => CapabilityPipeline): ProviderFactory {
  let loaded: Promise<ProviderFactory> | undefined;
  const load = async (): Promise<ProviderFactory> => {
    const [{ luaProviderFactory }, { pipelineInvoker }] = await Promise.all([
      import("../capabilities/lua/lua-provider-factory.js"),
      import("../capabilities/lua/lua-pipeline.js"),
    ]);
    return luaProviderFactory({ invokeAgent: pipelineInvoker(pipeline) });
  };
  return {
    name: "lua",
    accepts: (descriptor) => descriptor.kind === "lua_skill" && descriptor.entry?.type === "lua",
    create: async (input) => {
      loaded ??= load();
      return (await loaded).create(input);
    },
  };
}
