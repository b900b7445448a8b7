/**
 * The capability plane's inspection as every surface gets it (`list`, `explain`, `doctor`,
 * `skillgate capability`): the catalog's discovery, the manifests, and the managed store's
 * record of how each stored skill got there (an owner's skill, an import, an assistant's
 * draft), which decides its trust level. Light: it imports the catalog path, the capability
 * plane's reading and deciding (no Lua, no runner, no schema compiler) and the store's index
 * reader only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SourceOf } from "../capabilities/descriptors/from-skill.js";
import type { CapabilityInspection } from "../capabilities/discover.js";
import { inspectCatalogCapabilities } from "../capabilities/discover.js";
import type { CapabilityEventSink } from "../capabilities/events.js";
import type { RuntimeMode } from "../capabilities/types.js";
import type { DiscoveryResult } from "../catalog/discover.js";
import { INDEX_FILE, parseIndex } from "../store/index-file.js";
import type { CatalogSetup } from "./catalog-setup.js";

/** Options of {@link inspectSetupCapabilities}. */
export interface CapabilityInspectOptions {
  readonly runtime?: RuntimeMode;
  /** The project opt-in (`--project-extensions`); default the configuration's `extensions.project`. */
  readonly projectExtensions?: boolean;
  readonly events?: CapabilityEventSink;
  /** The catalog's discovery when the caller already ran it. */
  readonly discovery?: DiscoveryResult;
}

/** Discovers and decides every capability candidate of the setup's catalog. */
export function inspectSetupCapabilities(
  setup: CatalogSetup,
  options: CapabilityInspectOptions = {},
): CapabilityInspection {
  const catalog = setup.catalog;
  return inspectCatalogCapabilities(catalog, {
    project: options.projectExtensions ?? catalog.config.extensions.project,
    sourceOf: storeSourceOf(setup.storeFolder),
    ...(options.runtime !== undefined ? { runtime: options.runtime } : {}),
    ...(options.events !== undefined ? { events: options.events } : {}),
    ...(options.discovery !== undefined ? { discovery: options.discovery } : {}),
  });
}

/**
 * A catalog skill's source for trust: `store:<how>` for the managed store's skills, from
 * its `index.json` (read once, on the first store skill), else the catalog's source. An
 * index that cannot be read leaves `store`, which is judged as imported: when in doubt, less.
 */
export function storeSourceOf(storeFolder: string): SourceOf {
  let sources: ReadonlyMap<string, string> | undefined;
  return (decision) => {
    if (decision.source !== "store") return decision.source;
    if (sources === undefined) {
      try {
        const file = join(storeFolder, INDEX_FILE);
        const index = parseIndex(readFileSync(file, "utf8"), file);
        sources = new Map([...index.skills].map(([name, entry]) => [name, entry.source]));
      } catch {
        sources = new Map();
      }
    }
    const how = sources.get(decision.name);
    return how === undefined ? "store" : `store:${how}`;
  };
}
