/**
 * The catalog and extension host as every surface builds them: the managed store as a
 * source, the extensions' skills at the highest precedence, and extension settings read from
 * the configuration in force. {@link createSkillgate} and the light catalog path of the
 * bootstrap (docs/architecture.md) both build theirs here, so the two cannot disagree.
 *
 * Imports only the catalog, the store's enabled-names reader and the extension host: the
 * catalog commands load this and nothing heavier.
 */
import { join, resolve } from "node:path";
import { type Catalog, type CatalogOptions, createCatalog } from "../catalog/catalog.js";
import { resolveFolders } from "../core/folders.js";
import { ExtensionHost, type ExtensionSettings } from "../extensions/host.js";
import { Registry } from "../extensions/registry.js";
import type { Skill } from "../skill/skill.js";
import { enabledNamesReader } from "../store/enabled-names.js";

/** What the catalog and the extension host are built from (a part of `SkillgateOptions`). */
export interface CatalogSetupOptions extends Omit<CatalogOptions, "store"> {
  /** Offer the managed store's enabled skills (default true). */
  readonly useStore?: boolean;
  /** The extension registry: one the program already registered in, or a new one. */
  readonly extensions?: Registry;
  /** Load project roots' extensions and hooks; default the configuration's `extensions.project`. */
  readonly projectExtensions?: boolean;
}

/** A catalog whose extra skills include the registry's, and the host that loads that registry. */
export interface CatalogSetup {
  readonly catalog: Catalog;
  readonly extensions: ExtensionHost;
  /** `<data>/skills`. */
  readonly storeFolder: string;
}

/**
 * Builds the catalog and the extension host. Reads the configuration (a malformed file
 * throws `invalid_config`); loads no extension file: that is the bootstrap's step.
 */
export function createCatalogSetup(options: CatalogSetupOptions): CatalogSetup {
  const registry = options.extensions ?? new Registry();
  const catalog = createCatalog({ ...withStoreSource(options), extra: extraSkills(options.extra, registry) });
  const extensions = new ExtensionHost(registry, () => extensionSettings(catalog, options.projectExtensions));
  return { catalog, extensions, storeFolder: storeFolderOf(options) };
}

/**
 * The caller's skills and the extensions' skills, as one list for discovery: the same array
 * while neither changed, so discovery can reuse its decisions.
 */
export function extraSkills(given: CatalogOptions["extra"], registry: Registry): () => readonly Skill[] {
  let last: { given: readonly Skill[]; registered: readonly Skill[]; all: readonly Skill[] } | undefined;
  return () => {
    const current = typeof given === "function" ? given() : (given ?? []);
    const registered = registry.skills;
    if (last?.given !== current || last.registered !== registered)
      last = { given: current, registered, all: [...current, ...registered] };
    return last.all;
  };
}

/**
 * Where extensions and hooks come from, as the configuration says now. Project ones only
 * with the opt-in (`--project-extensions`, or `extensions.project: true`): cloning a
 * repository must never run its code.
 */
function extensionSettings(catalog: Catalog, project: boolean | undefined): ExtensionSettings {
  const config = catalog.config.extensions;
  const configFolder = catalog.folders.config;
  return {
    configFolder,
    roots: catalog.roots,
    project: project ?? config.project,
    // Relative paths in config.yaml are relative to the config folder, not to wherever the program started.
    paths: config.paths.map((path) => resolve(configFolder, path)),
    hookTimeoutMs: config.hooks.timeoutSeconds * 1000,
    hookMaxOutputBytes: config.hooks.maxOutputBytes,
  };
}

function storeFolderOf(options: CatalogSetupOptions): string {
  return join(resolveFolders(options).data, "skills");
}

/** Catalog options that include the managed store as a source (unless `useStore` is false). */
export function withStoreSource(options: CatalogSetupOptions): CatalogOptions {
  if (options.useStore === false) return options;
  const storeFolder = storeFolderOf(options);
  return { ...options, store: { folder: storeFolder, enabledNames: enabledNamesReader(storeFolder) } };
}
