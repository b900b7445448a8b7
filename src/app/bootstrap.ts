/**
 * The one bootstrap every surface starts from: the CLI's commands, the MCP host (stdio and
 * HTTP), the HTTP server, and embedders through the library. It builds the catalog (and for
 * the whole app, the Skillgate) and loads the extensions and hooks files exactly once, by one
 * rule: the owner's `<config>/extensions` and `<config>/hooks.json` always, a project's only
 * with the opt-in (`--project-extensions`, or `extensions.project: true`). A surface gets a
 * Skillgate whose hooks are in force and whose catalog lists the extensions' skills, or no
 * Skillgate at all: there is no step for it to forget. See docs/extensions.md.
 *
 * This file imports only the light catalog path statically; the whole app (runners, store,
 * policy, chat log) is imported when {@link bootstrapSkillgate} is called, so a catalog
 * command never loads it (docs/architecture.md).
 */
import type { ExtensionProblem } from "../extensions/load.js";
import type { Logger } from "../observe/logger.js";
import { type CatalogSetup, type CatalogSetupOptions, createCatalogSetup } from "./catalog-setup.js";
import type { Skillgate, SkillgateOptions } from "./skillgate.js";

/** Options of {@link bootstrapCatalog}. */
export interface BootstrapCatalogOptions extends CatalogSetupOptions {
  /** Told about each extension or hooks file that could not be used (a warning each). */
  readonly logger?: Logger;
}

/**
 * The catalog with the extensions loaded: what `list`, `explain`, `index`, `search` and
 * `doctor` read. The extensions' skills are in its discovery; their hooks are registered
 * (nothing fires them here: nothing is called). Throws `invalid_config` for a malformed
 * configuration file.
 */
export async function bootstrapCatalog(options: BootstrapCatalogOptions = {}): Promise<CatalogSetup> {
  const setup = createCatalogSetup(options);
  await loadExtensions(setup.extensions, options.logger);
  return setup;
}

/**
 * The whole Skillgate with its extensions and hooks loaded, the way every surface that calls
 * tools gets it (the CLI's `run`, MCP sessions, the HTTP server, the library's embedders).
 * Every call's `before_tool` and `after_tool` hooks are the loaded ones from the first call on.
 */
export async function bootstrapSkillgate(options: SkillgateOptions = {}): Promise<Skillgate> {
  const { createSkillgate } = await import("./skillgate.js");
  const skillgate = createSkillgate(options);
  try {
    await loadExtensions(skillgate.extensions, options.logger);
  } catch (error) {
    skillgate.close();
    throw error;
  }
  // The capability registry, unless the caller brought its own index: a provider that cannot
  // be built is logged and left out; a failure here never stops the app from starting.
  if (options.capabilityIndex === undefined) {
    try {
      const load = await skillgate.loadCapabilities();
      for (const failure of load.failures)
        options.logger?.warn("capability provider not built", { id: failure.id, reason: failure.message });
    } catch (error) {
      options.logger?.warn("capabilities not loaded", {
        error: error instanceof Error ? error.name : "Error",
      });
    }
  }
  return skillgate;
}

async function loadExtensions(
  extensions: CatalogSetup["extensions"],
  logger: Logger | undefined,
): Promise<readonly ExtensionProblem[]> {
  await extensions.load();
  for (const problem of extensions.problems)
    logger?.warn("extension file not loaded", { file: problem.file, reason: problem.message });
  return extensions.problems;
}
