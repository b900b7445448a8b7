import { resolve } from "node:path";
import { loadConfig, type SkillgateConfig } from "../config/config.js";
import { type FolderOptions, type Folders, resolveFolders } from "../core/folders.js";
import type { Skill } from "../skill/skill.js";
import { type DiscoveryResult, SkillDiscovery } from "./discover.js";
import { type SkillFolderSource, type StoreSourceOptions, skillFolderSources } from "./sources.js";

/** Options for {@link createCatalog}. */
export interface CatalogOptions extends FolderOptions {
  /** Project roots (default: none). The CLI passes the current folder. */
  readonly roots?: readonly string[];
  /** A configuration to use instead of reading `<config>/config.yaml`. */
  readonly configuration?: SkillgateConfig;
  /** Skills passed in by the caller, at the highest precedence. */
  readonly extra?: readonly Skill[];
  /** npm packages that publish skills, besides those in the configuration. */
  readonly packages?: readonly string[];
  /** Include the built-in skills (default true). */
  readonly builtins?: boolean;
  /** The managed store as a source (its enabled skills), placed after learned skills. */
  readonly store?: StoreSourceOptions;
}

/** A catalog bound to its folders, configuration and roots; discovery is cached between calls. */
export interface Catalog {
  readonly folders: Folders;
  readonly config: SkillgateConfig;
  readonly roots: readonly string[];
  /** Runs discovery; a repeat with nothing changed is cheap. */
  discover(): DiscoveryResult;
  /** The folders searched, in precedence order (packages not included). */
  folderSources(): SkillFolderSource[];
}

/**
 * Resolves folders and configuration once and returns a catalog over them. Throws
 * InvalidConfigError for a malformed configuration file.
 */
export function createCatalog(options: CatalogOptions = {}): Catalog {
  const folders = resolveFolders(options);
  const config = options.configuration ?? loadConfig(folders.config);
  const roots = (options.roots ?? []).map((root) => resolve(root));
  const discovery = new SkillDiscovery();
  return {
    folders,
    config,
    roots,
    discover: () =>
      discovery.discover({
        folders,
        config,
        roots,
        ...(options.extra !== undefined ? { extra: options.extra } : {}),
        ...(options.packages !== undefined ? { packages: options.packages } : {}),
        ...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
        ...(options.store !== undefined ? { store: options.store } : {}),
      }),
    folderSources: () =>
      skillFolderSources({
        folders,
        config,
        roots,
        ...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
        ...(options.store !== undefined ? { store: options.store } : {}),
      }),
  };
}
