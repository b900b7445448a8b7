import { join } from "node:path";
import { CONFIG_FILE } from "../config/config.js";
import type { DiagnosticCode } from "../core/diagnostics.js";
import { isSkillgateError } from "../core/errors.js";
import { type Catalog, type CatalogOptions, createCatalog } from "./catalog.js";
import { DECISION_KINDS, type DecisionKind } from "./decisions.js";
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

/** What `skillgate doctor` reports. `ok` is false when any problem is an error. */
export interface DoctorReport {
  readonly ok: boolean;
  readonly configFile: string;
  readonly dataFolder: string;
  readonly folders: readonly SourceReport[];
  readonly counts: Readonly<Record<DecisionKind, number>>;
  readonly problems: readonly DoctorProblem[];
  readonly checks: ReadonlyArray<{ name: string; ok: boolean; detail: string }>;
}

const FIXES: Partial<Record<DiagnosticCode, string>> = {
  invalid_front_matter: "fix the YAML between the --- lines (check indentation and quotes)",
  unterminated_front_matter: "add a line holding only --- after the front matter",
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
  const counts = emptyCounts();
  for (const decision of result.decisions) counts[decision.decision] += 1;
  return {
    ok: !problems.some((problem) => problem.severity === "error") && checks.every((check) => check.ok),
    configFile: join(catalog.folders.config, CONFIG_FILE),
    dataFolder: catalog.folders.data,
    folders: result.sources,
    counts,
    problems,
    checks,
  };
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
