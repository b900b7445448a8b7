import type { Command } from "commander";
import type { CatalogOptions } from "../../catalog/catalog.js";
import { type Catalog, createCatalog } from "../../catalog/catalog.js";

/** The global options every command shares. */
export interface GlobalOptions {
  readonly root?: string[];
  readonly config?: string;
  readonly data?: string;
  readonly builtins?: boolean;
}

/** Catalog options from the global flags: roots default to the current folder. */
export function catalogOptions(command: Command): CatalogOptions {
  const options = command.optsWithGlobals<GlobalOptions>();
  return {
    roots: options.root && options.root.length > 0 ? options.root : [process.cwd()],
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...(options.builtins === false ? { builtins: false } : {}),
  };
}

/** The catalog the global flags describe. */
export function openCatalog(command: Command): Catalog {
  return createCatalog(catalogOptions(command));
}
