import { lstatSync, realpathSync, type Stats } from "node:fs";
import { basename, join } from "node:path";
import picomatch from "picomatch";
import { DEFAULT_CONFIG, type SkillgateConfig } from "../config/config.js";
import { type Diagnostic, diagnostic, hasErrors } from "../core/diagnostics.js";
import { type Folders, resolveFolders } from "../core/folders.js";
import { type LoadedSkill, loadSkillText } from "../skill/load-skill.js";
import { fileSignature, readSkillFileText, SKILL_FILE } from "../skill/read-skill-file.js";
import type { Skill } from "../skill/skill.js";
import { type DecisionReason, reasonsFrom, type SkillDecision } from "./decisions.js";
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

interface CachedLoad {
  readonly signature: string;
  readonly loaded: LoadedSkill;
  /** `Date.now()` just before the file was read. */
  readonly readAt: number;
}

interface Candidate {
  readonly source: SkillFolderSource;
  readonly directory: string;
  readonly loaded?: LoadedSkill;
  readonly escapedTo?: string;
}

/**
 * Finds skills in every source and decides about each. It keeps a cache of parsed
 * SKILL.md files keyed by path and file signature, so a repeat with nothing changed
 * costs one `lstat` a skill (a file changed less than `RACY_WINDOW_MS` (file-stamps.ts) before it
 * was read is read again). Nothing here throws for user content.
 */
export class SkillDiscovery {
  readonly #cache = new Map<string, CachedLoad>();
  readonly #now: () => number;

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
    const seenFiles = new Set<string>();
    for (const source of sources) {
      const loads = new Map<string, LoadedSkill>();
      const walk = walkSkillsRoot(
        source.folder,
        allowedRoots,
        (directory) => this.#probe(source, directory, loads),
        options.limits ?? DEFAULT_WALK_LIMITS,
      );
      diagnostics.push(...walk.diagnostics);
      let found = 0;
      for (const candidate of walk.candidates) {
        const file = join(candidate.directory, SKILL_FILE);
        // A root listed twice counts its skills once (links inside one root are handled by the walk).
        if (seenFiles.has(`${source.source}\0${file}`)) continue;
        seenFiles.add(`${source.source}\0${file}`);
        found += 1;
        if (candidate.escaped) {
          candidates.push({ source, directory: candidate.directory, escapedTo: candidate.escaped.realPath });
        } else {
          const loaded = loads.get(candidate.directory);
          if (loaded) candidates.push({ source, directory: candidate.directory, loaded });
        }
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
    return decide(candidates, options.extra ?? [], config, diagnostics, reports);
  }

  #probe(source: SkillFolderSource, directory: string, loads: Map<string, LoadedSkill>): boolean {
    const file = join(directory, SKILL_FILE);
    const key = `${source.source}\0${file}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      const stats = statOrUndefined(file);
      const settled = stats !== undefined && settledBefore(stats, cached.readAt);
      if (settled && stats.isFile() && fileSignature(stats) === cached.signature) {
        loads.set(directory, cached.loaded);
        return true;
      }
      this.#cache.delete(key);
    }
    const readAt = this.#now();
    const read = readSkillFileText(file);
    if (!read.ok) {
      if (read.diagnostic.code === "missing_skill_file") return false;
      this.#cache.delete(key);
      loads.set(directory, { skill: undefined, diagnostics: [read.diagnostic], governanceInvalid: false });
      return true;
    }
    const loaded = loadSkillText(read.text, directory, { source: source.source });
    this.#cache.set(key, { signature: read.signature, loaded, readAt });
    loads.set(directory, loaded);
    return true;
  }
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

interface Entry {
  name: string;
  source: string;
  location: string;
  decision: SkillDecision["decision"];
  reasons: DecisionReason[];
  diagnostics: Diagnostic[];
  skill?: Skill;
}

function decide(
  candidates: readonly Candidate[],
  extra: readonly Skill[],
  config: SkillgateConfig,
  diagnostics: Diagnostic[],
  sources: SourceReport[],
): DiscoveryResult {
  const isDisabled = matcher(config.skills.disabled);
  const isHidden = matcher(config.skills.hidden);
  const entries: Entry[] = [];
  for (const candidate of candidates) {
    const entry = firstDecision(candidate);
    const isEnabled = candidate.source.isEnabled;
    if (
      isEnabled !== undefined &&
      entry.decision !== "rejected" &&
      !isEnabled(basename(candidate.directory))
    ) {
      entry.decision = "disabled";
      entry.reasons.push({
        code: "disabled_in_store",
        severity: "info",
        message: "not enabled in the managed store (skillgate store enable NAME --hash HASH)",
      });
    }
    entries.push(entry);
  }
  for (const skill of extra) {
    entries.push({
      name: skill.name,
      source: skill.source,
      location: skill.where,
      decision: "registered",
      reasons: [],
      diagnostics: [],
      skill,
    });
  }
  const winners = new Map<string, Entry>();
  for (const entry of entries) {
    if (entry.decision === "rejected" || entry.decision === "disabled") continue;
    if (isDisabled(entry.name)) {
      entry.decision = "disabled";
      entry.reasons.push({
        code: "disabled_by_config",
        severity: "info",
        message: "disabled by skills.disabled in the configuration",
      });
      continue;
    }
    if (isHidden(entry.name) && entry.decision === "registered") {
      entry.decision = "display_only";
      entry.reasons.push({
        code: "hidden_by_config",
        severity: "info",
        message: "hidden by skills.hidden in the configuration",
      });
    }
    const previous = winners.get(entry.name);
    if (previous !== undefined) {
      previous.decision = "shadowed";
      previous.reasons.push({
        code: "shadowed_by",
        severity: "info",
        message: `replaced by the ${entry.source} skill at ${entry.location}`,
        winner: { source: entry.source, location: entry.location },
      });
    }
    winners.set(entry.name, entry);
  }
  const skills = entries
    .filter((entry) => entry.decision === "registered" && entry.skill !== undefined)
    .map((entry) => entry.skill as Skill)
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  const decisions: SkillDecision[] = entries.map((entry) => ({
    name: entry.name,
    source: entry.source,
    location: entry.location,
    decision: entry.decision,
    reasons: entry.reasons,
    diagnostics: entry.diagnostics,
    ...(entry.skill !== undefined && entry.decision !== "rejected" ? { skill: entry.skill } : {}),
  }));
  return { skills, decisions, diagnostics, sources };
}

function firstDecision(candidate: Candidate): Entry {
  const location = join(candidate.directory, SKILL_FILE);
  const base = { source: candidate.source.source, location };
  if (candidate.escapedTo !== undefined) {
    const problem = diagnostic(
      "path_not_allowed",
      "error",
      `${candidate.directory} links to ${candidate.escapedTo}, outside every skills folder`,
      {
        path: candidate.directory,
        hint: "move the skill into a skills folder or list its folder in the configuration",
      },
    );
    return {
      ...base,
      name: basename(candidate.directory),
      decision: "rejected",
      reasons: reasonsFrom([problem]),
      diagnostics: [problem],
    };
  }
  const loaded = candidate.loaded as LoadedSkill;
  const skill = loaded.skill;
  if (
    skill === undefined ||
    hasErrors(
      loaded.diagnostics.filter(
        (item) => item.code !== "invalid_governance" && item.code !== "invalid_parameters_schema",
      ),
    )
  ) {
    return {
      ...base,
      name: skill?.name ?? basename(candidate.directory),
      decision: "rejected",
      reasons: reasonsFrom(loaded.diagnostics),
      diagnostics: [...loaded.diagnostics],
    };
  }
  return {
    ...base,
    name: skill.name,
    decision: loaded.governanceInvalid ? "display_only" : "registered",
    reasons: reasonsFrom(loaded.diagnostics),
    diagnostics: [...loaded.diagnostics],
    skill,
  };
}

function matcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const test = picomatch([...patterns]);
  return (name) => test(name);
}
