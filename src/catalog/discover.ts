import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, sep } from "node:path";
import { DEFAULT_CONFIG, type SkillgateConfig } from "../config/config.js";
import type { Diagnostic } from "../core/diagnostics.js";
import { type Folders, resolveFolders } from "../core/folders.js";
import { type LoadedSkill, loadSkillHead } from "../skill/load-skill.js";
import { readSkillFileHead, SKILL_FILE } from "../skill/read-skill-file.js";
import type { Skill } from "../skill/skill.js";
import { Candidates } from "./candidates.js";
import { type Decided, decide } from "./decide.js";
import type { SkillDecision } from "./decisions.js";
import { LoadCache } from "./load-cache.js";
import { NOTHING_LEFT_OUT, type NotSearched } from "./not-searched.js";
import { packageSkillSources } from "./packages.js";
import { type SkillFolderSource, type StoreSourceOptions, skillFolderSources } from "./sources.js";
import { type WalkLimits, type WalkOutcome, walkSkillFolders } from "./walk.js";

/** Inputs to discovery. Everything has a default: the platform folders, no project roots. */
export interface DiscoveryOptions {
  readonly folders?: Folders;
  readonly config?: SkillgateConfig;
  /** Project roots searched for `.skillgate/skills` and `.agents/skills`. */
  readonly roots?: readonly string[];
  /** Skills passed in by the caller: the highest precedence. */
  readonly extra?: readonly Skill[];
  /** npm package names that publish skills, besides those in the config. */
  readonly packages?: readonly string[];
  /** Include built-in skills (default true). */
  readonly builtins?: boolean;
  /** The managed store, when there is one: its folder and its enabled names. */
  readonly store?: StoreSourceOptions;
  /** The walk's caps; default: the configuration's `discovery` section. */
  readonly limits?: WalkLimits;
}

/** One searched folder and what was found there, for `paths` and `doctor`. */
export interface SourceReport {
  readonly source: string;
  readonly kind: SkillFolderSource["kind"];
  readonly folder: string;
  readonly reason: string;
  readonly exists: boolean;
  readonly found: number;
  /** What the walk of this folder skipped or left out, with counts (see walk.ts). */
  readonly notSearched: NotSearched;
}

/** What discovery found: the skills that may be offered, a decision for every skill found, and problems. */
export interface DiscoveryResult {
  /** Registered skills only, sorted by name. */
  readonly skills: Skill[];
  /** One decision per skill found, in precedence order. */
  readonly decisions: SkillDecision[];
  /** Problems not tied to one skill (a folder over the limits, a broken package). */
  readonly diagnostics: Diagnostic[];
  readonly sources: SourceReport[];
}

/** What a run decided from, to tell whether the next run may reuse its decisions. */
interface RunInputs {
  readonly config: SkillgateConfig;
  readonly extra: readonly Skill[] | undefined;
  readonly candidates: Candidates;
  readonly decided: Decided;
}

/**
 * Finds skills in every source and decides about each. It keeps a cache of parsed
 * SKILL.md files keyed by path and file version (inode, size, modification and change
 * times), so a repeat with nothing changed costs one `lstat` a skill; when every file,
 * folder listing, store switch and option is as before, the previous decisions are
 * returned as they are. A file changed less than RACY_WINDOW_MS (core/file-stamps.ts) before it
 * was read is read again next time. Nothing here throws for user content.
 */
export class SkillDiscovery {
  /** One cache per source name: the same folder may be two sources (a root listed as user and project). */
  readonly #cache = new Map<string, LoadCache>();
  readonly #now: () => number;
  #last: RunInputs | undefined;

  /** `now` is the clock the racy-file rule reads (default `Date.now`); tests move it forward. */
  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Runs discovery. See {@link DiscoveryOptions}. */
  discover(options: DiscoveryOptions = {}): DiscoveryResult {
    const folders = options.folders ?? resolveFolders();
    const config = options.config ?? DEFAULT_CONFIG;
    const roots = options.roots ?? [];
    const packages = packageSkillSources(
      roots,
      [...config.skills.packages, ...(options.packages ?? [])],
      [process.cwd()],
    );
    const sources = skillFolderSources({
      folders,
      config,
      roots,
      packageFolders: packages.sources,
      ...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
      ...(options.store !== undefined ? { store: options.store } : {}),
    });
    const realFolders = sources.map((source) => realFolderOf(source.folder));
    const allowedRoots = realFolders.filter((real): real is string => typeof real === "string");
    const diagnostics: Diagnostic[] = [...packages.diagnostics];
    const candidates = new Candidates();
    const reports: SourceReport[] = [];
    const seen = new SeenFolders();
    const limits = options.limits ?? walkLimitsOf(config);
    // Each source name's cache, started on its first walk of this run and finished after the last.
    const caches = new Map<string, LoadCache>();
    for (const [index, source] of sources.entries()) {
      let cache = caches.get(source.source);
      if (cache === undefined) {
        cache = this.#cacheFor(source.source);
        cache.start();
        caches.set(source.source, cache);
      }
      const before = candidates.length;
      const realFolder = realFolders[index];
      const walk =
        realFolder === MISSING
          ? MISSING_FOLDER
          : this.#walk(
              source,
              realFolder,
              cache,
              allowedRoots,
              limits,
              candidates,
              seen.walking(source.source, candidates),
            );
      seen.walked(source.source, before, candidates.length);
      diagnostics.push(...walk.diagnostics);
      reports.push({
        source: source.source,
        kind: source.kind,
        folder: source.folder,
        reason: source.reason,
        exists: walk.exists,
        found: candidates.length - before,
        notSearched: walk.notSearched,
      });
    }
    for (const cache of caches.values()) cache.finish();
    const decided = this.#decideOrReuse(candidates, options.extra, config);
    return { skills: decided.skills, decisions: decided.decisions, diagnostics, sources: reports };
  }

  /**
   * Walks one source and adds what it finds to `candidates`. The probe reads each SKILL.md
   * (or finds it unchanged in the cache) and leaves its path and load for `found`, which
   * the walk calls right after the probe that answered true. `seenHere` holds the folders
   * earlier walks of the same source name counted, when there were any.
   */
  #walk(
    source: SkillFolderSource,
    realFolder: string | undefined,
    cache: LoadCache,
    allowedRoots: readonly string[],
    limits: WalkLimits,
    candidates: Candidates,
    seenHere: Set<string> | undefined,
  ): WalkOutcome {
    const name = source.source;
    const loadOptions = { source: name };
    const isEnabled = source.isEnabled;
    let file = "";
    let loaded: LoadedSkill | undefined;
    const probe = (directory: string, folderName: string, realDirectory: string, parent: string): boolean => {
      const isRoot = parent === "";
      file = isRoot ? skillFileOf(directory) : directory + SKILL_FILE_IN_FOLDER;
      // The same file through its real path, for the system calls: no link resolved again.
      const realFile = isRoot ? skillFileOf(realDirectory) : realDirectory + SKILL_FILE_IN_FOLDER;
      const key = isRoot ? directory : folderName;
      const position = cache.find(parent, key);
      if (position !== -1) {
        const stats = statOrUndefined(realFile);
        const reused = stats === undefined ? undefined : cache.keepIfUnchanged(position, stats);
        if (reused !== undefined) {
          loaded = reused;
          return true;
        }
      }
      const readAt = this.#now();
      const read = readSkillFileHead(file, realFile);
      if (!read.ok) {
        if (read.diagnostic.code === "missing_skill_file") return false;
        loaded = { skill: undefined, diagnostics: [read.diagnostic], governanceInvalid: false };
        return true;
      }
      loaded = loadSkillHead(read, directory, file, loadOptions, folderName);
      cache.add(parent, key, loaded, read.stats, readAt);
      return true;
    };
    const found = (directory: string, escapedTo: string | undefined): void => {
      if (seenHere !== undefined) {
        // A root listed twice counts its skills once (links inside one root are handled by the walk).
        if (seenHere.has(directory)) return;
        seenHere.add(directory);
      }
      const linkedOut = escapedTo !== undefined;
      candidates.push(
        name,
        directory,
        linkedOut ? skillFileOf(directory) : file,
        linkedOut ? undefined : loaded,
        escapedTo,
        isEnabled === undefined ? undefined : isEnabled(basename(directory)),
      );
    };
    const walker =
      source.ownFolders === undefined ? { probe, found } : { probe, found, ownFolders: source.ownFolders };
    return walkSkillFolders(source.folder, allowedRoots, walker, limits, realFolder);
  }

  #decideOrReuse(
    candidates: Candidates,
    extra: readonly Skill[] | undefined,
    config: SkillgateConfig,
  ): Decided {
    const last = this.#last;
    if (
      last !== undefined &&
      last.config === config &&
      last.extra === extra &&
      candidates.sameAs(last.candidates)
    ) {
      return last.decided;
    }
    const decided = decide(candidates, extra ?? [], config);
    this.#last = { config, extra, candidates, decided };
    return decided;
  }

  #cacheFor(source: string): LoadCache {
    let cache = this.#cache.get(source);
    if (cache === undefined) {
      cache = new LoadCache();
      this.#cache.set(source, cache);
    }
    return cache;
  }
}

/**
 * The folders already counted per source name. One walk never lists a folder twice, so
 * only where a name's first walk put its folders in the candidates is recorded; a set is
 * built only when a source name comes round again (a root listed twice, or as two folders).
 */
class SeenFolders {
  readonly #firstWalks = new Map<string, { readonly start: number; readonly end: number }>();
  readonly #sets = new Map<string, Set<string>>();

  /** The set a walk of `source` checks and adds to, or undefined on the name's first walk. */
  walking(source: string, candidates: Candidates): Set<string> | undefined {
    const first = this.#firstWalks.get(source);
    if (first === undefined) return undefined;
    let set = this.#sets.get(source);
    if (set === undefined) {
      set = new Set(candidates.directories.slice(first.start, first.end));
      this.#sets.set(source, set);
    }
    return set;
  }

  /** Records where the first walk of `source` put its folders. */
  walked(source: string, start: number, end: number): void {
    if (!this.#firstWalks.has(source)) this.#firstWalks.set(source, { start, end });
  }
}

const SKILL_FILE_IN_FOLDER = sep + SKILL_FILE;

function skillFileOf(directory: string): string {
  return directory.endsWith(sep) ? directory + SKILL_FILE : directory + SKILL_FILE_IN_FOLDER;
}

/** `lstat` that reports a missing or unreachable file as undefined; the read that follows says why. */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

const sharedDiscovery = new SkillDiscovery();

/** Discovers skills with a process-wide cache. See {@link SkillDiscovery}. */
export function discoverSkills(options: DiscoveryOptions = {}): DiscoveryResult {
  return sharedDiscovery.discover(options);
}

/** The walk limits a configuration sets. */
export function walkLimitsOf(config: SkillgateConfig): WalkLimits {
  const caps = config.discovery;
  return { maxDepth: caps.maxDepth, maxFolders: caps.maxFoldersPerRoot, maxSkills: caps.maxSkillsPerRoot };
}

/** What a source folder that is not there gives. */
const MISSING_FOLDER: WalkOutcome = { exists: false, diagnostics: [], notSearched: NOTHING_LEFT_OUT };

/** A source folder that does not exist: nothing to walk, nothing it allows. */
const MISSING = Symbol("missing");

/**
 * A source folder's real path; {@link MISSING} when nothing is there (most sources, on most
 * machines: found with one `stat` and no error object); undefined when it cannot be told
 * (no permission, a file on the way), which the walk then reports.
 */
function realFolderOf(folder: string): string | typeof MISSING | undefined {
  try {
    if (statSync(folder, { throwIfNoEntry: false }) === undefined) return MISSING;
    return realpathSync.native(folder);
  } catch {
    return undefined;
  }
}
