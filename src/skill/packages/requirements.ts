/**
 * Python requirements as a skill may declare them (docs/running-scripts.md, "Packages"):
 * PEP 508 names with extras, version specifiers and markers. A direct reference
 * (`name @ https://…`), a local path and any pip option are refused: where packages come
 * from is the owner's setting (the package index), never the skill's.
 */

/** The longest requirement read, in characters. */
export const MAX_REQUIREMENT_LENGTH = 500;

const NAME = "[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?";
const SPECIFIER = "(?:===|==|!=|<=|>=|~=|<|>)\\s*[A-Za-z0-9.*+!_-]+";
const SPECIFIERS = `${SPECIFIER}(?:\\s*,\\s*${SPECIFIER})*`;
const REQUIREMENT = new RegExp(
  `^(${NAME})\\s*(?:\\[\\s*(?:${NAME}(?:\\s*,\\s*${NAME})*)?\\s*\\])?\\s*(?:\\(\\s*${SPECIFIERS}\\s*\\)|${SPECIFIERS})?\\s*(?:;[^@]*)?$`,
);

/** A requirement that was read, or why it was refused. */
export type RequirementCheck =
  | { readonly ok: true; readonly requirement: string; readonly name: string }
  | { readonly ok: false; readonly reason: string };

/** Checks one requirement string; the name comes back normalised (PEP 503: lower case, runs of `-_.` as `-`). */
export function checkRequirement(text: string): RequirementCheck {
  const requirement = text.trim();
  if (requirement === "") return { ok: false, reason: "it is empty" };
  if (requirement.length > MAX_REQUIREMENT_LENGTH)
    return { ok: false, reason: `it is over ${MAX_REQUIREMENT_LENGTH} characters` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(requirement)) return { ok: false, reason: "it holds a control character" };
  // pip reads the requirements file skillgate writes: a word starting with `-` after a
  // requirement would be read as an option, and a backslash as a continued line.
  if (/(^|\s)-/.test(requirement) || requirement.includes("\\"))
    return { ok: false, reason: "pip options are not read (the package index is the owner's setting)" };
  const beforeMarker = requirement.split(";")[0] ?? "";
  if (beforeMarker.includes("@") || /^[./~]|:\/\//.test(requirement))
    return {
      ok: false,
      reason: "direct references (a URL or a path) are not installed: name a package of the index",
    };
  const match = REQUIREMENT.exec(requirement);
  if (match === null) return { ok: false, reason: "it is not a PEP 508 requirement" };
  return { ok: true, requirement, name: normalisePackageName(match[1] ?? "") };
}

/** PEP 503's normal form of a package name. */
export function normalisePackageName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** One line of a requirements file that was read, or refused with its 1-based line. */
export type RequirementsLine =
  | { readonly ok: true; readonly requirement: string; readonly line: number }
  | { readonly ok: false; readonly reason: string; readonly line: number; readonly text: string };

/**
 * The requirements of a `requirements.txt`: one a line, `#` comments and blank lines
 * skipped. Options (`-r`, `--index-url`, `-e`, …) and continued lines are refused, each
 * with its line.
 */
export function readRequirementsFile(text: string): RequirementsLine[] {
  const lines: RequirementsLine[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = index + 1;
    const content = raw.replace(/(^|\s)#.*$/, "").trim();
    if (content === "") continue;
    if (content.endsWith("\\")) {
      lines.push({ ok: false, reason: "continued lines are not read", line, text: content });
      continue;
    }
    const checked = checkRequirement(content);
    lines.push(
      checked.ok
        ? { ok: true, requirement: checked.requirement, line }
        : { ok: false, reason: checked.reason, line, text: content },
    );
  }
  return lines;
}
