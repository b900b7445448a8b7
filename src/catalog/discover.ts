import { lstatSync, realpathSync, type Stats } from "node:fs";
import { sep } from "node:path";
import { DEFAULT_CONFIG, type SkillgateConfig } from "../config/config.js";
import type { Diagnostic } from "../core/diagnostics.js";
import { type Folders, resolveFolders } from "../core/folders.js";
import { type LoadedSkill, loadSkillHead } from "../skill/load-skill.js";
import { readSkillFileHead, SKILL_FILE } from "../skill/read-skill-file.js";
import type { Skill } from "../skill/skill.js";
import { type Candidate, type Decided, decide } from "./decide.js";
import type { SkillDecision } from "./decisions.js";
import { settledBefore } from "./file-stamps.js";
import { packageSkillSources } from "./packages.js";
import { type SkillFolderSource, type StoreSourceOptions, skillFolderSources } from "./sources.js";
import { DEFAULT_WALK_LIMITS, type WalkLimits, walkSkillsRoot } from "./walk.js";

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

/** A parsed SKILL.md and the file version it was parsed from. */
interface CachedLoad {
  readonly loaded: LoadedSkill;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** The clock just before the file was read (see file-stamps.ts). */
  readonly readAt: number;
}

/** What a run decided from, to tell whether the next run may reuse its decisions. */
interface RunInputs {
  readonly config: SkillgateConfig;
  readonly extra: readonly Skill[] | undefined;
  /** Per candidate: its source, folder, loaded object and store switch, in order. */
  readonly candidates: readonly unknown[];
  readonly decided: Decided;
}

/**
 * Finds skills in every source and decides about each. It keeps a cache of parsed
 * SKILL.md files keyed by path and file version (inode, size, modification and change
 * times), so a repeat with nothing changed costs one `lstat` a skill; when every file,
 * folder listing, store switch and option is as before, the previous decisions are
 * returned as they are. A file changed less than RACY_WINDOW_MS (file-stamps.ts) before it
 * was read is read again next time. Nothing here throws for user content.
 */
export class SkillDiscovery {
  /** One cache per source name: the same folder may be two sources (a root listed as user and project). */
  readonly #cache = new Map<string, Map<string, CachedLoad>>();
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
    const allowedRoots = realRoots(sources);
    const diagnostics: Diagnostic[] = [...packages.diagnostics];
    const candidates: Candidate[] = [];
    const reports: SourceReport[] = [];
    const seen = new SeenFolders();
    const limits = options.limits ?? DEFAULT_WALK_LIMITS;
    for (const source of sources) {
      const cache = this.#cacheFor(source.source);
      // What the probe found, in the order the walk records the folders (see SkillProbe).
      const probed: Probed = { files: [], loads: [] };
      const walk = walkSkillsRoot(
        source.folder,
        allowedRoots,
        (directory) => this.#probe(cache, source.source, directory, probed),
        limits,
      );
      diagnostics.push(...walk.diagnostics);
      // A root listed twice counts its skills once (links inside one root are handled by the walk).
      const seenHere = seen.walking(source.source, walk.candidates);
      let found = 0;
      let next = 0;
      for (const candidate of walk.candidates) {
        const escaped = candidate.escaped;
        const index = escaped === undefined ? next++ : -1;
        if (seenHere !== undefined) {
          if (seenHere.has(candidate.directory)) continue;
          seenHere.add(candidate.directory);
        }
        found += 1;
        candidates.push({
          source,
          directory: candidate.directory,
          location: index === -1 ? skillFileOf(candidate.directory) : (probed.files[index] as string),
          loaded: index === -1 ? undefined : probed.loads[index],
          escapedTo: escaped?.realPath,
        });
      }
      reports.push({
        source: source.source,
        kind: source.kind,
        folder: source.folder,
        reason: source.reason,
        exists: walk.exists,
        found,
      });
    }
    const decided = this.#decideOrReuse(candidates, options.extra, config);
    return { skills: decided.skills, decisions: decided.decisions, diagnostics, sources: reports };
  }

  #decideOrReuse(
    candidates: readonly Candidate[],
    extra: readonly Skill[] | undefined,
    config: SkillgateConfig,
  ): Decided {
    const inputs = candidateInputs(candidates);
    const last = this.#last;
    if (
      last !== undefined &&
      last.config === config &&
      last.extra === extra &&
      sameItems(last.candidates, inputs)
    ) {
      return last.decided;
    }
    const decided = decide(candidates, extra ?? [], config);
    this.#last = { config, extra, candidates: inputs, decided };
    return decided;
  }

  #cacheFor(source: string): Map<string, CachedLoad> {
    const cache = this.#cache.get(source) ?? new Map<string, CachedLoad>();
    this.#cache.set(source, cache);
    return cache;
  }

  #probe(cache: Map<string, CachedLoad>, source: string, directory: string, probed: Probed): boolean {
    const file = skillFileOf(directory);
    const cached = cache.get(file);
    if (cached !== undefined) {
      const stats = statOrUndefined(file);
      if (stats !== undefined && unchanged(cached, stats)) {
        probed.files.push(file);
        probed.loads.push(cached.loaded);
        return true;
      }
      cache.delete(file);
    }
    const readAt = this.#now();
    const read = readSkillFileHead(file);
    if (!read.ok) {
      if (read.diagnostic.code === "missing_skill_file") return false;
      probed.files.push(file);
      probed.loads.push({ skill: undefined, diagnostics: [read.diagnostic], governanceInvalid: false });
      return true;
    }
    const loaded = loadSkillHead(read, directory, file, { source });
    const { stats } = read;
    cache.set(file, {
      loaded,
      ino: stats.ino,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      readAt,
    });
    probed.files.push(file);
    probed.loads.push(loaded);
    return true;
  }
}

/** What a walk's probes found: each SKILL.md path and its load, in probe order. */
interface Probed {
  readonly files: string[];
  readonly loads: LoadedSkill[];
}

/**
 * The folders already counted per source name. One walk never lists a folder twice, so
 * nothing is recorded for a name's first walk beyond its list; a set is built only when a
 * source name comes round again (a root listed twice, or as two folders).
 */
class SeenFolders {
  readonly #firstWalks = new Map<string, readonly { readonly directory: string }[]>();
  readonly #sets = new Map<string, Set<string>>();

  /** The set this walk of `source` checks and adds to, or undefined on the name's first walk. */
  walking(source: string, candidates: readonly { readonly directory: string }[]): Set<string> | undefined {
    const first = this.#firstWalks.get(source);
    if (first === undefined) {
      this.#firstWalks.set(source, candidates);
      return undefined;
    }
    let set = this.#sets.get(source);
    if (set === undefined) {
      set = new Set(first.map((candidate) => candidate.directory));
      this.#sets.set(source, set);
    }
    return set;
  }
}

function unchanged(cached: CachedLoad, stats: Stats): boolean {
  return (
    stats.isFile() &&
    stats.ino === cached.ino &&
    stats.size === cached.size &&
    stats.mtimeMs === cached.mtimeMs &&
    stats.ctimeMs === cached.ctimeMs &&
    settledBefore(stats, cached.readAt)
  );
}

/** Everything a decision depends on per candidate, flattened for a cheap comparison. */
function candidateInputs(candidates: readonly Candidate[]): unknown[] {
  const inputs: unknown[] = [];
  for (const candidate of candidates) {
    const isEnabled = candidate.source.isEnabled;
    inputs.push(
      candidate.source.source,
      candidate.directory,
      candidate.loaded,
      candidate.escapedTo,
      isEnabled === undefined
        ? undefined
        : isEnabled(candidate.directory.slice(candidate.directory.lastIndexOf(sep) + 1)),
    );
  }
  return inputs;
}

function sameItems(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
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

function realRoots(sources: readonly SkillFolderSource[]): string[] {
  const roots: string[] = [];
  for (const source of sources) {
    try {
      roots.push(realpathSync(source.folder));
    } catch {
      // A folder that does not exist allows nothing.
    }
  }
  return roots;
}
