import { resolve } from "node:path";
import { ConfigFile, type SkillgateConfig } from "../config/config.js";
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
  /**
   * Skills passed in by the caller, at the highest precedence: a list, or a function giving
   * the current list (extensions' skills change on reload). Return the same array while
   * nothing changed: discovery reuses its decisions only for an identical list.
   */
  readonly extra?: readonly Skill[] | (() => readonly Skill[]);
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
 * Resolves folders once and returns a catalog over them. The configuration file is read
 * now and again whenever it changes. Throws InvalidConfigError for a malformed file.
 */
export function createCatalog(options: CatalogOptions = {}): Catalog {
  const folders = resolveFolders(options);
  const file = new ConfigFile(folders.config);
  const currentConfig = (): SkillgateConfig => options.configuration ?? file.current();
  // Read now, so a malformed file is reported when the catalog is made.
  currentConfig();
  const roots = (options.roots ?? []).map((root) => resolve(root));
  const discovery = new SkillDiscovery();
  return {
    folders,
    get config() {
      return currentConfig();
    },
    roots,
    discover: () =>
      discovery.discover({
        folders,
        config: currentConfig(),
        roots,
        ...(options.extra !== undefined
          ? { extra: typeof options.extra === "function" ? options.extra() : options.extra }
          : {}),
        ...(options.packages !== undefined ? { packages: options.packages } : {}),
        ...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
        ...(options.store !== undefined ? { store: options.store } : {}),
      }),
    folderSources: () =>
      skillFolderSources({
        folders,
        config: currentConfig(),
        roots,
        ...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
        ...(options.store !== undefined ? { store: options.store } : {}),
      }),
  };
}
