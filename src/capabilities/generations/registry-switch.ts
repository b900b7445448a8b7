import type { CapabilitiesConfig } from "../../config/capabilities-config.js";
import { LuaCapabilityProvider } from "../lua/lua-provider.js";
import { type CapabilityRegistry, CapabilitySnapshot, type RegistryEntry } from "../registry.js";
import type { CapabilityIndexSwitch } from "./hot-reload.js";

/**
 * The reloader's "switch capability index" step on the real registry: a new snapshot with
 * the reloaded provider in place of the one it replaces (or added), every other entry as it
 * was, installed whole by {@link CapabilityRegistry.switch}. A call keeps the snapshot it
 * started with, so it is answered by one generation.
 *
 * The entry replaced is the one of the new provider's id and, when a reload changed the
 * manifest's id, the one of the previous generation's id. A Lua provider the registry held
 * that the reloader did not build (the capability plane's first load, before the reloader
 * started) is retired to the new one: its calls in flight finish, later ones are handed over,
 * and its state is closed. The reloader drains its own previous generation itself.
 */
export function registrySwitch(
  registry: CapabilityRegistry,
  config?: CapabilitiesConfig | (() => CapabilitiesConfig),
): CapabilityIndexSwitch {
  return (next, previous) => {
    const id = next.provider.descriptor.id;
    const replacedIds = new Set([id, ...(previous === undefined ? [] : [previous.descriptor.id])]);
    const replacement: RegistryEntry = {
      provider: next.provider,
      capabilities: next.capabilities,
      runtimes: next.runtimes,
    };
    const held = registry.snapshot.entries.filter((entry) => replacedIds.has(entry.provider.descriptor.id));
    const entries = registry.snapshot.entries.filter(
      (entry) => !replacedIds.has(entry.provider.descriptor.id),
    );
    registry.switch(
      new CapabilitySnapshot([...entries, replacement], typeof config === "function" ? config() : config),
    );
    const successor = next.provider instanceof LuaCapabilityProvider ? next.provider : undefined;
    for (const entry of held) {
      const provider = entry.provider;
      if (provider === previous || provider === next.provider) continue;
      if (provider instanceof LuaCapabilityProvider) void provider.retire(successor).catch(() => undefined);
    }
  };
}
