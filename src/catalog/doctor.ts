import { join } from "node:path";
import { CONFIG_FILE } from "../config/config.js";
import type { DiagnosticCode } from "../core/diagnostics.js";
import { isSkillgateError } from "../core/errors.js";
import { findSkillFolderLinks } from "../skill/skill-files.js";
import { type Catalog, type CatalogOptions, createCatalog } from "./catalog.js";
import { DECISION_KINDS, type DecisionKind, type SkillDecision } from "./decisions.js";
import type { SourceReport } from "./discover.js";

/** One problem `doctor` found, with how to fix it. */
export interface DoctorProblem {
  readonly severity: "error" | "warning";
  readonly code: string;
  /** What it is about: a skill name, a folder, the configuration. */
  readonly subject: string;
  readonly message: string;
  readonly fix: string;
  readonly location?: string;
}

/** Why a part of a skills folder was not searched, or its skills not loaded. */
export type NotSearchedReason = "skipped_folder" | "depth_limit" | "skill_limit" | "folder_limit";

/** One thing discovery left out of a skills folder, with how many. */
export interface NotSearchedEntry {
  /** The skills folder (a searched root). */
  readonly folder: string;
  readonly source: string;
  readonly reason: NotSearchedReason;
  /**
   * Folders skipped by name, folders at the depth limit not listed, skills past the
   * per-root cap not loaded, or folders past the folder cap not searched (at least).
   */
  readonly count: number;
  /** For `skipped_folder`: the count by name (`.git`, `node_modules`, the store's own folders). */
  readonly names?: Readonly<Record<string, number>>;
  readonly message: string;
}

/** What `skillgate doctor` reports. `ok` is false when any problem is an error. */
export interface DoctorReport {
  readonly ok: boolean;
  readonly configFile: string;
  readonly dataFolder: string;
  readonly folders: readonly SourceReport[];
  /** Everything discovery did not search or did not load, by folder and reason. */
  readonly notSearched: readonly NotSearchedEntry[];
  readonly counts: Readonly<Record<DecisionKind, number>>;
  readonly problems: readonly DoctorProblem[];
  readonly checks: ReadonlyArray<{ name: string; ok: boolean; detail: string }>;
}

const FIXES: Partial<Record<DiagnosticCode, string>> = {
  invalid_front_matter: "fix the YAML between the --- lines (check indentation and quotes)",
  unterminated_front_matter: "add a line holding only --- after the front matter",
  missing_front_matter: "start SKILL.md with front matter: ---, name:, description:, ---",
  duplicate_key: "remove the repeated key from the front matter",
  yaml_alias_limit: "write the values out instead of using YAML anchors and aliases",
  front_matter_too_large: "move long text from the front matter into the body",
  front_matter_not_mapping: "write the front matter as key: value lines",
  missing_description: "add a description: line saying what the skill does and when to use it",
  invalid_name: "use a name of lower-case letters, digits and single hyphens, matching the folder",
  name_mismatch: "rename the folder or the name: field so they match",
  name_too_long: "shorten the name to 64 characters or fewer",
  description_too_long: "shorten the description to 1024 characters or fewer",
  invalid_governance: "use one of the documented values (see skillgate explain NAME)",
  invalid_parameters_schema: 'give parameters_schema "type": "object" and valid JSON Schema',
  symlink_not_allowed: "replace the symbolic link with a regular file",
  path_not_allowed: "move the skill inside a skills folder instead of linking to it",
  file_too_large: "keep SKILL.md under 1 MiB; move material into references/",
  binary_content: "SKILL.md must be UTF-8 text",
  limit_exceeded: "point skillgate at a narrower folder or split it",
};

/** Runs every check `skillgate doctor` makes. Never throws: a bad configuration is a problem. */
export function runDoctor(options: CatalogOptions = {}): DoctorReport {
  const checks = [nodeCheck()];
  let catalog: Catalog;
  try {
    catalog = createCatalog(options);
  } catch (error) {
    if (!isSkillgateError(error)) throw error;
    const problem: DoctorProblem = {
      severity: "error",
      code: error.code,
      subject: "configuration",
      message: error.message,
      fix: `correct the file, or move it aside to use the defaults`,
    };
    return {
      ok: false,
      configFile: "",
      dataFolder: "",
      folders: [],
      notSearched: [],
      counts: emptyCounts(),
      problems: [problem],
      checks,
    };
  }
  const result = catalog.discover();
  const problems: DoctorProblem[] = [];
  for (const decision of result.decisions) {
    const considered =
      decision.decision === "rejected" ||
      decision.decision === "display_only" ||
      decision.decision === "registered";
    if (!considered) continue;
    for (const item of decision.diagnostics) {
      if (item.code === "unknown_field") continue;
      problems.push({
        severity: item.severity,
        code: item.code,
        subject: decision.name,
        message: item.message,
        fix: item.hint ?? FIXES[item.code] ?? "see the message",
        location: decision.location,
      });
    }
  }
  for (const item of result.diagnostics) {
    problems.push({
      severity: item.severity,
      code: item.code,
      subject: item.path ?? "discovery",
      message: item.message,
      fix: item.hint ?? FIXES[item.code] ?? "see the message",
      ...(item.path !== undefined ? { location: item.path } : {}),
    });
  }
  problems.push(...linkProblems(result.decisions));
  const counts = emptyCounts();
  for (const decision of result.decisions) counts[decision.decision] += 1;
  return {
    ok: !problems.some((problem) => problem.severity === "error") && checks.every((check) => check.ok),
    configFile: join(catalog.folders.config, CONFIG_FILE),
    dataFolder: catalog.folders.data,
    folders: result.sources,
    notSearched: notSearchedEntries(result.sources),
    counts,
    problems,
    checks,
  };
}

/** What each walk left out, as entries: skipped names first, then each cap that was reached. */
export function notSearchedEntries(sources: readonly SourceReport[]): NotSearchedEntry[] {
  const entries: NotSearchedEntry[] = [];
  for (const report of sources) {
    const { folder, source, notSearched } = report;
    const names = Object.entries(notSearched.skippedFolders);
    if (names.length > 0) {
      const count = names.reduce((sum, [, each]) => sum + each, 0);
      entries.push({
        folder,
        source,
        reason: "skipped_folder",
        count,
        names: notSearched.skippedFolders,
        message: `${count} folder(s) skipped by name: ${names.map(([name, each]) => `${name} ${each}`).join(", ")}`,
      });
    }
    if (notSearched.belowDepthLimit > 0)
      entries.push({
        folder,
        source,
        reason: "depth_limit",
        count: notSearched.belowDepthLimit,
        message: `${notSearched.belowDepthLimit} folder(s) at the depth limit were not searched further`,
      });
    if (notSearched.overSkillLimit > 0)
      entries.push({
        folder,
        source,
        reason: "skill_limit",
        count: notSearched.overSkillLimit,
        message: `${notSearched.overSkillLimit} skill(s) past the per-root cap were not loaded`,
      });
    if (notSearched.overFolderLimit > 0)
      entries.push({
        folder,
        source,
        reason: "folder_limit",
        count: notSearched.overFolderLimit,
        message: `at least ${notSearched.overFolderLimit} folder(s) past the folder cap were not searched`,
      });
  }
  return entries;
}

/**
 * Symbolic links inside the skills discovery loaded. Discovery reads only each SKILL.md
 * (docs/skills.md), so a link elsewhere in a skill folder is found here: every runner
 * refuses a skill holding a link, so each is an error, and one leading outside the skill
 * says where it leads.
 */
function linkProblems(decisions: readonly SkillDecision[]): DoctorProblem[] {
  const problems: DoctorProblem[] = [];
  for (const decision of decisions) {
    if (decision.decision === "shadowed" || decision.decision === "rejected") continue;
    const directory = decision.skill?.directory;
    if (directory === undefined) continue;
    for (const link of findSkillFolderLinks(directory)) {
      problems.push(
        link.escapes
          ? {
              severity: "error",
              code: "path_not_allowed",
              subject: decision.name,
              message: `${link.path} is a symbolic link leading outside the skill (to ${link.target}); runners refuse to run a skill holding it and no tool reads through it`,
              fix: "replace the link with a copy of what it points to, inside the skill folder",
              location: join(directory, link.path),
            }
          : {
              severity: "error",
              code: "symlink_not_allowed",
              subject: decision.name,
              message: `${link.path} is a symbolic link (to ${link.target}); runners refuse to run a skill holding one`,
              fix: "replace the link with a copy of the file",
              location: join(directory, link.path),
            },
      );
    }
  }
  return problems;
}

function emptyCounts(): Record<DecisionKind, number> {
  return Object.fromEntries(DECISION_KINDS.map((kind) => [kind, 0])) as Record<DecisionKind, number>;
}

function nodeCheck(): { name: string; ok: boolean; detail: string } {
  const major = Number(process.versions.node.split(".")[0]);
  return {
    name: "node",
    ok: major >= 20,
    detail:
      major >= 20
        ? `Node.js ${process.versions.node}`
        : `Node.js ${process.versions.node}; skillgate needs 20 or later`,
  };
}
