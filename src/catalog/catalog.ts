import { resolve } from "node:path";
import { ConfigFile, type SkillgateConfig } from "../config/config.js";
import { type FolderOptions, type Folders, resolveFolders } from "../core/folders.js";
import type { Skill } from "../skill/skill.js";
import { type DiscoveryResult, SkillDiscovery } from "./discover.js";
import { CatalogRevision } from "./revision.js";
import { type SkillFolderSource, type StoreSourceOptions, skillFolderSources } from "./sources.js";
import {
  type CatalogWatch,
  type CatalogWatchOptions,
  packageFoldersOf,
  startCatalogWatch,
  type WatchedCatalog,
} from "./watch.js";

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

/**
 * A catalog bound to its folders, configuration and roots; discovery is cached between calls.
 * Without a watch (short-lived processes: CLI commands) every `discover()` looks at the tree
 * (cheap when nothing changed: one `lstat` a skill). While a watch runs (long-running
 * processes: the MCP server) the catalog is kept by revision: `discover()` returns the last
 * result while the revision has not moved, and the configuration is read again only when it
 * moved; see {@link Catalog.watch} and docs/mcp.md, "What a call may miss".
 */
export interface Catalog {
  readonly folders: Folders;
  readonly config: SkillgateConfig;
  readonly roots: readonly string[];
  /** Moves whenever what discovery finds may have changed (only while a watch runs; see revision.ts). */
  readonly revision: CatalogRevision;
  /** How many times discovery looked at the tree (for tests and diagnostics). */
  readonly discoveryRuns: number;
  /** Runs discovery, or (while watched) returns the result for the current revision. */
  discover(): DiscoveryResult;
  /** The folders searched, in precedence order (packages not included). */
  folderSources(): SkillFolderSource[];
  /**
   * Keeps the catalog by revision from now on: file-system notifications under the searched
   * folders and this process's store writes move the revision, a slow re-check covers what
   * notifications miss (watch.ts). Stopping the last watch goes back to a look per call.
   */
  watch(options?: CatalogWatchOptions): CatalogWatch;
}

/** The last result kept for a revision, and what it was made from. */
interface KeptResult {
  readonly revision: number;
  readonly extra: readonly Skill[] | undefined;
  readonly result: DiscoveryResult;
}

/**
 * Resolves folders once and returns a catalog over them. The configuration file is read
 * now and again whenever it changes. Throws InvalidConfigError for a malformed file.
 */
export function createCatalog(options: CatalogOptions = {}): Catalog {
  const folders = resolveFolders(options);
  const file = new ConfigFile(folders.config);
  const revision = new CatalogRevision();
  let watches = 0;
  /** The running watches: while one is still placing its watches, every call looks at the tree. */
  const running = new Set<CatalogWatch>();
  const lookEveryCall = (): boolean => {
    if (watches === 0) return true;
    for (const watch of running) if (watch.placing) return true;
    return false;
  };
  let keptConfig: { revision: number; config: SkillgateConfig } | undefined;
  let kept: KeptResult | undefined;
  let discoveryRuns = 0;
  const currentConfig = (): SkillgateConfig => {
    if (options.configuration !== undefined) return options.configuration;
    if (lookEveryCall()) return file.current();
    // Watched: the config folder is watched too, so the file is read again only when the revision moved.
    if (keptConfig?.revision !== revision.value)
      keptConfig = { revision: revision.value, config: file.current() };
    return keptConfig.config;
  };
  // Read now, so a malformed file is reported when the catalog is made.
  currentConfig();
  const roots = (options.roots ?? []).map((root) => resolve(root));
  const discovery = new SkillDiscovery();
  let lastExtra: readonly Skill[] | undefined;
  /**
   * The caller's skills now: the previous array when it holds the same skills, so discovery
   * (and the kept result) recognise an unchanged list by identity even from a caller that
   * builds a new array each time.
   */
  const extraNow = (): readonly Skill[] | undefined => {
    const extra = typeof options.extra === "function" ? options.extra() : options.extra;
    if (extra !== undefined && lastExtra !== undefined && sameSkills(extra, lastExtra)) return lastExtra;
    lastExtra = extra;
    return extra;
  };
  const look = (extra: readonly Skill[] | undefined): DiscoveryResult => {
    discoveryRuns += 1;
    return discovery.discover({
      folders,
      config: currentConfig(),
      roots,
      ...(extra !== undefined ? { extra } : {}),
      ...(options.packages !== undefined ? { packages: options.packages } : {}),
      ...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
      ...(options.store !== undefined ? { store: options.store } : {}),
    });
  };
  const keep = (extra: readonly Skill[] | undefined, result: DiscoveryResult): DiscoveryResult => {
    kept = { revision: revision.value, extra, result };
    return result;
  };
  const watched: WatchedCatalog = {
    revision,
    current: () => {
      const extra = extraNow();
      // Extensions' skills are compared by identity: the same array comes back while unchanged.
      if (kept !== undefined && kept.revision === revision.value && kept.extra === extra) return kept.result;
      return keep(extra, look(extra));
    },
    recheck: () => {
      const extra = extraNow();
      // The configuration too: a file system without notifications gets no event for it.
      keptConfig = undefined;
      const result = look(extra);
      if (kept !== undefined && kept.result.decisions !== result.decisions) revision.bump("re-check");
      return keep(extra, result);
    },
    watchPlan: (result) => ({
      trees: [...new Set([folders.config, ...result.sources.map((source) => source.folder)])],
      shallow: roots.flatMap(packageFoldersOf),
    }),
  };
  return {
    folders,
    get config() {
      return currentConfig();
    },
    roots,
    revision,
    get discoveryRuns() {
      return discoveryRuns;
    },
    discover: () => {
      if (watches === 0) return look(extraNow());
      if (!lookEveryCall()) return watched.current();
      // Watches still being placed: look now, as without a watch, and keep what was found.
      const extra = extraNow();
      return keep(extra, look(extra));
    },
    watch: (watchOptions) => {
      watches += 1;
      // Whatever was kept before this watch started may be stale: look again.
      revision.bump("watch started");
      const watch = startCatalogWatch(watched, watchOptions);
      running.add(watch);
      let stopped = false;
      return {
        get placing() {
          return watch.placing;
        },
        get ready() {
          return watch.ready;
        },
        check: watch.check,
        status: watch.status,
        stop: () => {
          if (stopped) return;
          stopped = true;
          running.delete(watch);
          watch.stop();
          watches -= 1;
          if (watches === 0) kept = undefined;
        },
      };
    },
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

function sameSkills(left: readonly Skill[], right: readonly Skill[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}
