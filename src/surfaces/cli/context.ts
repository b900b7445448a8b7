import type { Command } from "commander";
import {
  createSkillgate,
  type Skillgate,
  type SkillgateOptions,
  withStoreSource,
} from "../../app/skillgate.js";
import type { Catalog, CatalogOptions } from "../../catalog/catalog.js";
import { stderrLogger } from "../../observe/logger.js";

/** The global options every command shares. */
export interface GlobalOptions {
  readonly root?: string[];
  readonly config?: string;
  readonly data?: string;
  readonly builtins?: boolean;
  readonly projectExtensions?: boolean;
}

/** skillgate's options from the global flags: roots default to the current folder. */
export function skillgateOptions(command: Command): SkillgateOptions {
  const options = command.optsWithGlobals<GlobalOptions>();
  return {
    roots: options.root && options.root.length > 0 ? options.root : [process.cwd()],
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...(options.builtins === false ? { builtins: false } : {}),
    ...(options.projectExtensions === true ? { projectExtensions: true } : {}),
    // The library is silent unless given a logger; the CLI (and the MCP server it starts) logs to stderr.
    logger: stderrLogger,
  };
}

/** Catalog options from the global flags, with the managed store as a source. */
export function catalogOptions(command: Command): CatalogOptions {
  return withStoreSource(skillgateOptions(command));
}

/** skillgate as the global flags describe it. */
export function openSkillgate(command: Command): Skillgate {
  return createSkillgate(skillgateOptions(command));
}

/** The catalog the global flags describe. */
export function openCatalog(command: Command): Catalog {
  return openSkillgate(command).catalog;
}
