import { MAX_DISCOVERY_DEPTH, MAX_DISCOVERY_FOLDERS, MAX_SKILLS_PER_ROOT } from "../core/limits.js";
import { bounded, unknownKeys } from "./config-fields.js";

/**
 * The `discovery` section of config.yaml: the caps of the folder walk, per skills root
 * (docs/limits.md). What a cap leaves out is counted and shown by `skillgate doctor`.
 */
export interface DiscoveryConfig {
  /** Skills loaded from one root; the rest are counted, not loaded (`limit_exceeded`). */
  readonly maxSkillsPerRoot: number;
  /** Folders entered below one root (skill folders included) before the walk stops. */
  readonly maxFoldersPerRoot: number;
  /** Deepest folder level searched below a root (the root is level 0). */
  readonly maxDepth: number;
}

/** 20,000 skills and 50,000 folders a root, 6 levels deep. */
export const DEFAULT_DISCOVERY_CONFIG: DiscoveryConfig = {
  maxSkillsPerRoot: MAX_SKILLS_PER_ROOT,
  maxFoldersPerRoot: MAX_DISCOVERY_FOLDERS,
  maxDepth: MAX_DISCOVERY_DEPTH,
};

/** Bounds of each number: a typo can neither turn discovery off nor make a walk unbounded. */
export const DISCOVERY_BOUNDS = {
  maxSkillsPerRoot: { min: 1, max: 1_000_000 },
  maxFoldersPerRoot: { min: 1, max: 5_000_000 },
  maxDepth: { min: 1, max: 32 },
} as const;

/**
 * Reads the `discovery` section, adding every problem to `problems`. A skill folder counts
 * as a folder, so when only `max_skills_per_root` is given the folder cap follows it (at
 * least twice the skills cap, never below the default); a folder cap set below the skills
 * cap is a problem, as the skills cap could never be reached.
 */
export function readDiscoveryConfig(section: Record<string, unknown>, problems: string[]): DiscoveryConfig {
  unknownKeys(section, "discovery", ["max_skills_per_root", "max_folders_per_root", "max_depth"], problems);
  const defaults = DEFAULT_DISCOVERY_CONFIG;
  const maxSkillsPerRoot = bounded(
    section.max_skills_per_root,
    "discovery.max_skills_per_root",
    DISCOVERY_BOUNDS.maxSkillsPerRoot,
    defaults.maxSkillsPerRoot,
    problems,
  );
  const followingFolders = Math.min(
    DISCOVERY_BOUNDS.maxFoldersPerRoot.max,
    Math.max(defaults.maxFoldersPerRoot, 2 * maxSkillsPerRoot),
  );
  const maxFoldersPerRoot = bounded(
    section.max_folders_per_root,
    "discovery.max_folders_per_root",
    DISCOVERY_BOUNDS.maxFoldersPerRoot,
    followingFolders,
    problems,
  );
  if (maxFoldersPerRoot < maxSkillsPerRoot)
    problems.push(
      `"discovery.max_folders_per_root" (${maxFoldersPerRoot}) must be at least "discovery.max_skills_per_root" (${maxSkillsPerRoot}): every skill is a folder`,
    );
  const maxDepth = bounded(
    section.max_depth,
    "discovery.max_depth",
    DISCOVERY_BOUNDS.maxDepth,
    defaults.maxDepth,
    problems,
  );
  return { maxSkillsPerRoot, maxFoldersPerRoot, maxDepth };
}
