import { basename, join } from "node:path";
import { type Diagnostic, type DiagnosticCode, diagnostic } from "../core/diagnostics.js";
import { SkillgateError } from "../core/errors.js";
import { readSkillFields, type SkillFields, type ValidationMode } from "./fields.js";
import { parseFrontMatterYaml, splitFrontMatter } from "./front-matter.js";
import { scanCleanFields } from "./front-matter-scanner.js";
import { readGovernance } from "./governance.js";
import { readSkillFileText, SKILL_FILE, type SkillFileContent } from "./read-skill-file.js";
import { Skill } from "./skill.js";

/** How to load a skill folder. */
export interface LoadSkillOptions {
  /** The source name the skill is recorded under. */
  readonly source: string;
  /** `lenient` (default) loads what clients load; `strict` reports every finding as an error. */
  readonly mode?: ValidationMode;
}

/** A skill folder's outcome: the skill when it can be offered at all, and every problem found. */
export interface LoadedSkill {
  readonly skill: Skill | undefined;
  readonly diagnostics: Diagnostic[];
  /** True when the skill loaded but a governance key is invalid: it may be shown, not offered. */
  readonly governanceInvalid: boolean;
}

/** Loads the skill in `directory` from its SKILL.md. Never throws for content problems. */
export function loadSkillFolder(directory: string, options: LoadSkillOptions): LoadedSkill {
  const path = join(directory, SKILL_FILE);
  const read = readSkillFileText(path);
  if (!read.ok) return { skill: undefined, diagnostics: [read.diagnostic], governanceInvalid: false };
  return loadSkillText(read.text, directory, options);
}

/** Loads a skill from SKILL.md text that was already read from `directory`. */
export function loadSkillText(text: string, directory: string, options: LoadSkillOptions): LoadedSkill {
  const path = join(directory, SKILL_FILE);
  const split = splitFrontMatter(text);
  if (split.unterminated) {
    const problem = diagnostic(
      "unterminated_front_matter",
      "error",
      "front matter starts with --- but has no closing --- line",
      {
        path,
        hint: "add a line holding only --- after the front matter",
      },
    );
    return { skill: undefined, diagnostics: [problem], governanceInvalid: false };
  }
  return loadSkillParts(split.yaml, split.body, directory, path, options, basename(directory));
}

/**
 * Loads a skill from a SKILL.md as discovery reads it (`readSkillFileHead`): from
 * its front matter alone when that could be cut out of the bytes (the body is read when
 * asked for; a file with front matter takes its description from there), else from the
 * whole text. `path` is the SKILL.md in `directory`, `folderName` its last part (the
 * walk knows it). Gives what {@link loadSkillText} gives for the whole file.
 */
export function loadSkillHead(
  head: SkillFileContent,
  directory: string,
  path: string,
  options: LoadSkillOptions,
  folderName = basename(directory),
): LoadedSkill {
  if (head.yaml !== undefined) {
    const fields = scanCleanFields(head.yaml, folderName);
    if (fields !== undefined) return withGovernance(fields, NO_DIAGNOSTICS, directory, path, options);
    return loadSkillParts(head.yaml, "", directory, path, options, folderName, NO_DIAGNOSTICS);
  }
  return loadSkillText(head.text, directory, options);
}

/**
 * The problems of a clean skill as discovery keeps it: one frozen empty list for all, as
 * discovery never hands a load out (decisions carry their own lists).
 */
const NO_DIAGNOSTICS = Object.freeze([]) as unknown as Diagnostic[];

function loadSkillParts(
  yaml: string | undefined,
  body: string,
  directory: string,
  path: string,
  options: LoadSkillOptions,
  folderName: string,
  emptyList?: Diagnostic[],
): LoadedSkill {
  const mode = options.mode ?? "lenient";
  let diagnostics: Diagnostic[] = emptyList ?? [];
  let data: Record<string, unknown> = {};
  if (yaml !== undefined) {
    const parsed = parseFrontMatterYaml(yaml, path);
    diagnostics = concatenated(diagnostics, parsed.diagnostics);
    if (parsed.data === undefined) return { skill: undefined, diagnostics, governanceInvalid: false };
    data = parsed.data;
  }
  const fieldsResult = readSkillFields(data, {
    folderName,
    path,
    mode,
    hasFrontMatter: yaml !== undefined,
    body,
  });
  diagnostics = concatenated(diagnostics, fieldsResult.diagnostics);
  const fields = fieldsResult.fields;
  if (fields === undefined) return { skill: undefined, diagnostics, governanceInvalid: false };
  return withGovernance(fields, diagnostics, directory, path, options);
}

/** The rest of loading once the fields are read: governance, then the skill. */
function withGovernance(
  fields: SkillFields,
  found: Diagnostic[],
  directory: string,
  path: string,
  options: LoadSkillOptions,
): LoadedSkill {
  const governanceResult = readGovernance(fields.metadata, { path, mode: options.mode ?? "lenient" });
  const diagnostics = concatenated(found, governanceResult.diagnostics);
  const skill = new Skill({
    name: fields.name,
    source: options.source,
    description: fields.description,
    where: path,
    directory,
    fields,
    governance: governanceResult.governance,
    body: readOwnBody,
  });
  return { skill, diagnostics, governanceInvalid: governanceResult.diagnostics.length > 0 };
}

/** `list` with `more` added; `list` itself when there is nothing to add (most skills). */
function concatenated(list: Diagnostic[], more: readonly Diagnostic[]): Diagnostic[] {
  if (more.length === 0) return list;
  // The shared empty list (see NO_DIAGNOSTICS) is never added to.
  const target = Object.isFrozen(list) ? [] : list;
  for (const item of more) target.push(item);
  return target;
}

/** The body source of every skill loaded from a SKILL.md: reads the skill's own `where` when asked. */
function readOwnBody(this: Skill): string {
  return readBody(this.where);
}

/** Reads a SKILL.md again and returns its body; throws {@link SkillUnreadableError} when it can no longer be read. */
function readBody(path: string): string {
  const read = readSkillFileText(path);
  if (!read.ok) throw new SkillUnreadableError(path, read.diagnostic.code, read.diagnostic.message);
  return splitFrontMatter(read.text).body.replace(/^\n+/, "");
}

/** A skill's SKILL.md could not be read when its body was asked for. */
export class SkillUnreadableError extends SkillgateError<{ path: string; reason: DiagnosticCode }> {
  constructor(path: string, reason: DiagnosticCode, message: string) {
    super("skill_unreadable", message, { path, reason });
  }
}
