import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_GOVERNANCE, type Governance } from "../../skill/governance.js";
import { loadSkillText } from "../../skill/load-skill.js";
import { SKILL_FILE } from "../../skill/read-skill-file.js";
import { MAX_FILE_BYTES, MAX_FILES } from "../limits.js";
import { LINT_RULES, type LintRuleId, type LintWarning } from "./lint-types.js";
import { runRules } from "./rules.js";
import { scriptSource } from "./script-source.js";

/**
 * Review lint (docs/drafts-and-edits.md, "Review lint"): heuristic warnings a reviewer sees next to
 * a draft or an edit. They are hints, not guarantees: a warning may be wrong, and a skill with none
 * may still do harm, so the owner still reads every script.
 */

/** At most this many warnings of one rule in one file; the rest add nothing a reviewer needs. */
export const MAX_WARNINGS_PER_RULE_AND_FILE = 5;
/** At most this many warnings for a whole skill. */
export const MAX_LINT_WARNINGS = 50;
/** Longest `skillgate.review-warnings` text, in characters; the rest is counted, not listed. */
export const MAX_REVIEW_WARNINGS_TEXT = 4_000;

/** A skill to lint: a folder, or its files as text (path → content; SKILL.md included). */
export type LintInput = string | ReadonlyMap<string, string | Uint8Array> | Readonly<Record<string, string>>;

/** Lints a skill: every script it holds, against every rule, with the governance of its SKILL.md. */
export async function lintSkill(input: LintInput): Promise<LintWarning[]> {
  return lintSkillFiles(typeof input === "string" ? await readTextFiles(input) : input);
}

/** {@link lintSkill} for files already in memory; binary files are skipped. */
export function lintSkillFiles(
  files: ReadonlyMap<string, string | Uint8Array> | Readonly<Record<string, string>>,
): LintWarning[] {
  const entries = new Map<string, string>();
  const source = files instanceof Map ? [...files.entries()] : Object.entries(files);
  for (const [path, content] of source) {
    const text = typeof content === "string" ? content : Buffer.from(content).toString("utf8");
    if (!text.includes("\u0000")) entries.set(path, text);
  }
  const governance = governanceOf(entries.get(SKILL_FILE));
  const warnings: LintWarning[] = [];
  for (const path of [...entries.keys()].sort()) {
    if (path === SKILL_FILE) continue;
    const script = scriptSource(path, entries.get(path) as string);
    if (script === undefined) continue;
    const counts = new Map<LintRuleId, number>();
    for (const hit of runRules({ script, governance })) {
      const count = (counts.get(hit.rule) ?? 0) + 1;
      counts.set(hit.rule, count);
      if (count <= MAX_WARNINGS_PER_RULE_AND_FILE) warnings.push({ file: path, ...hit });
    }
  }
  warnings.sort(
    (left, right) =>
      (left.file < right.file ? -1 : left.file > right.file ? 1 : 0) ||
      left.line - right.line ||
      LINT_RULES.indexOf(left.rule) - LINT_RULES.indexOf(right.rule),
  );
  return warnings.slice(0, MAX_LINT_WARNINGS);
}

const SUMMARY: Readonly<Record<LintRuleId, string>> = {
  "command-passthrough": "an argument may reach a shell",
  "read-tier-changes": "tier read, but it looks like it changes something",
  "unvalidated-arguments": "arguments used without validation",
  "network-call": "network call the runner may not allow or expect",
};

/**
 * The warnings as one line of text for `skillgate.review-warnings`:
 * `scripts/run.py:3 command-passthrough (an argument may reach a shell); …`, at most
 * {@link MAX_REVIEW_WARNINGS_TEXT} characters, then how many more there are.
 */
export function formatReviewWarnings(warnings: readonly LintWarning[]): string {
  const parts: string[] = [];
  let length = 0;
  for (const [index, warning] of warnings.entries()) {
    const part = `${warning.file}:${warning.line} ${warning.rule} (${SUMMARY[warning.rule]})`;
    if (length + part.length + 2 > MAX_REVIEW_WARNINGS_TEXT - 40) {
      parts.push(`and ${warnings.length - index} more`);
      break;
    }
    parts.push(part);
    length += part.length + 2;
  }
  return parts.join("; ");
}

function governanceOf(skillFile: string | undefined): Governance {
  if (skillFile === undefined) return DEFAULT_GOVERNANCE;
  // The folder name only matters for name checks, which lint does not report.
  return loadSkillText(skillFile, "/lint", { source: "lint" }).skill?.governance ?? DEFAULT_GOVERNANCE;
}

/** Reads a folder's regular files (no links), at most {@link MAX_FILES} of at most 1 MiB each. */
async function readTextFiles(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const pending = [""];
  for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
    const entries = await readdir(join(folder, relative), { withFileTypes: true });
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && files.size < MAX_FILES) {
        const size = (await lstat(join(folder, path))).size;
        if (size <= MAX_FILE_BYTES) files.set(path, await readFile(join(folder, path), "utf8"));
      }
    }
  }
  return files;
}
