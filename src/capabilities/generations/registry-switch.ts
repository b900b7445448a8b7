import type { CapabilitiesConfig } from "../../config/capabilities-config.js";
import { type CapabilityRegistry, CapabilitySnapshot, type RegistryEntry } from "../registry.js";
import type { CapabilityIndexSwitch } from "./hot-reload.js";

/**
 * The reloader's "switch capability index" step on the real registry: a new snapshot with
 * the reloaded provider in place of the one it replaces (or added), every other entry as it
 * was, installed whole by {@link CapabilityRegistry.switch}. A call keeps the snapshot it
 * started with, so it is answered by one generation.
 */
export function registrySwitch(
  registry: CapabilityRegistry,
  config?: CapabilitiesConfig,
): CapabilityIndexSwitch {
  return (next) => {
    const id = next.provider.descriptor.id;
    const replacement: RegistryEntry = {
      provider: next.provider,
      capabilities: next.capabilities,
      runtimes: next.runtimes,
    };
    const entries = registry.snapshot.entries.filter((entry) => entry.provider.descriptor.id !== id);
    registry.switch(new CapabilitySnapshot([...entries, replacement], config));
  };
}
