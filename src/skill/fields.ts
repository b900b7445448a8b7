import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from "../core/limits.js";
import { isPlainObject } from "../core/safe-json.js";
import { codePointLength } from "../core/text.js";
import { isUnicodeSpace } from "./front-matter-tables.js";

/**
 * The fields of the Agent Skills specification, read from front matter. One rule set
 * serves both modes: `lenient` loads what clients load (a name that does not match its
 * folder or is too long is a warning), `strict` (`skillgate validate`) turns every finding
 * into an error.
 */
export type ValidationMode = "lenient" | "strict";

/** Front matter keys the specification defines. Others are warnings (errors when strict). */
export const SPEC_FIELDS: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
];

/** The specification's fields, as read. `metadata` keeps non-string values for governance to judge. */
export interface SkillFields {
  readonly name: string;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly allowedTools: readonly string[];
}

/** What {@link readSkillFields} found: the fields when the skill can load, and every problem. */
export interface FieldsResult {
  readonly fields: SkillFields | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

const NOTHING_FOUND: readonly Diagnostic[] = Object.freeze([]);

const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Printable ASCII words with one space between: `split(" ")` finds exactly the runs. */
const SPACED_WORDS = /^[!-~]+(?: [!-~]+)*$/;

/**
 * Reads and checks the specification's fields. `folderName` is the skill's folder, which
 * the name must match. Without front matter, lenient mode names the skill after its folder
 * and describes it by the body's first paragraph; strict mode refuses it
 * (`missing_front_matter`).
 */
export function readSkillFields(
  data: Record<string, unknown>,
  context: { folderName: string; path?: string; mode: ValidationMode; hasFrontMatter: boolean; body: string },
): FieldsResult {
  const problems = new Findings(context.mode, context.path);
  if (!context.hasFrontMatter && context.mode === "strict") {
    // The specification requires front matter with name and description; lenient loading
    // takes the folder name and the first paragraph instead (docs/skills.md).
    problems.fail(
      "missing_front_matter",
      "SKILL.md has no front matter; the Agent Skills specification requires one with name and description",
      "front matter",
      `start SKILL.md with a --- line, name: ${context.folderName}, a description: line, and a closing --- line`,
    );
    return { fields: undefined, diagnostics: problems.found() };
  }
  const name = readName(data, context, problems);
  const description = readDescription(data, context, problems);
  const license = readOptionalString(data, "license", problems);
  const compatibility = readOptionalString(data, "compatibility", problems);
  // A text has at most as many code points as UTF-16 units: only a long one needs counting.
  if (
    compatibility !== undefined &&
    (compatibility.length === 0 || compatibility.length > MAX_COMPATIBILITY_LENGTH)
  ) {
    const length = codePointLength(compatibility);
    if (length < 1 || length > MAX_COMPATIBILITY_LENGTH) {
      problems.add(
        "invalid_field",
        `compatibility must be 1 to ${MAX_COMPATIBILITY_LENGTH} characters (has ${length})`,
        "compatibility",
      );
    }
  }
  const metadata = readMetadata(data, problems);
  const allowedTools = readAllowedTools(data, problems);
  for (const key of Object.keys(data)) {
    if (!SPEC_FIELDS.includes(key)) {
      problems.warn(
        "unknown_field",
        `front matter key "${key}" is not part of the Agent Skills specification`,
        key,
      );
    }
  }
  if (name === undefined || description === undefined || problems.hasLoadErrors()) {
    return { fields: undefined, diagnostics: problems.found() };
  }
  // Written out whole when there is a license (most skills), so the object is made with
  // room for all its fields at once.
  const fields: { -readonly [Key in keyof SkillFields]: SkillFields[Key] } =
    license !== undefined
      ? { name, description, metadata, allowedTools, license }
      : { name, description, metadata, allowedTools };
  if (compatibility !== undefined) fields.compatibility = compatibility;
  return { fields, diagnostics: problems.found() };
}

function readName(
  data: Record<string, unknown>,
  context: { folderName: string; mode: ValidationMode; hasFrontMatter: boolean },
  problems: Findings,
): string | undefined {
  const raw = data.name;
  if (raw === undefined || raw === null || raw === "") {
    if (!context.hasFrontMatter || context.mode === "lenient") {
      if (context.hasFrontMatter)
        problems.warn("missing_name", "front matter has no name; the folder name is used", "name");
      // A folder name is held to the same rules: it becomes the skill's name everywhere.
      return checkName(context.folderName, problems);
    }
    problems.fail("missing_name", "front matter has no name", "name");
    return undefined;
  }
  if (typeof raw !== "string") {
    problems.fail("invalid_name", `name must be text, not ${describeType(raw)}`, "name");
    return undefined;
  }
  const name = checkName(raw, problems);
  if (name !== undefined && name !== context.folderName) {
    problems.add("name_mismatch", `name "${name}" does not match its folder "${context.folderName}"`, "name");
  }
  // The same text: keep the folder's string, which the walk holds anyway, and let the copy go.
  return name === context.folderName ? context.folderName : name;
}

/**
 * The name rules. Outside ASCII letters, digits, `_`, `.` and `-` a name is refused in
 * every mode: non-ASCII and invisible characters make lookalikes that impersonate another
 * skill, and `/`, `\`, `:`, `@` or a name of only dots would let a name act as a path or
 * split a grant key. Upper case, `_`, `.` and misplaced hyphens are what clients load, so
 * they are findings (warnings when lenient), as is a name over the length limit.
 */
function checkName(raw: string, problems: Findings): string | undefined {
  const shape = nameShape(raw);
  if (shape === "refused") {
    problems.fail("invalid_name", `name "${escapeForMessage(raw)}" may use only a-z, 0-9 and "-"`, "name");
    return undefined;
  }
  // Only ASCII is left, so UTF-16 units are code points.
  if (raw.length > MAX_NAME_LENGTH) {
    problems.add(
      "name_too_long",
      `name is ${raw.length} characters; the limit is ${MAX_NAME_LENGTH}`,
      "name",
    );
  }
  if (shape !== "specification") {
    problems.add(
      "invalid_name",
      `name "${raw}" may use only lower-case a-z, 0-9 and single hyphens, not at the start or end`,
      "name",
    );
  }
  return raw;
}

/**
 * How a name stands against the rules, in one pass: `refused` when empty, only dots, or
 * holding anything outside ASCII letters, digits, `_`, `.` and `-` (what
 * `/^[A-Za-z0-9_.-]+$/` and `/^\.+$/` decide); `specification` when it is lower-case a-z,
 * 0-9 and single hyphens not at the start or end (`/^[a-z0-9]+(?:-[a-z0-9]+)*$/`); else
 * `loadable`.
 */
export function nameShape(raw: string): "refused" | "loadable" | "specification" {
  if (raw.length === 0) return "refused";
  let onlyDots = true;
  let specification = true;
  let afterHyphen = false;
  for (let index = 0; index < raw.length; index += 1) {
    const code = raw.charCodeAt(index);
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
      onlyDots = false;
      afterHyphen = false;
    } else if (code === 0x2d) {
      if (index === 0 || afterHyphen) specification = false;
      onlyDots = false;
      afterHyphen = true;
    } else if (code === 0x2e) {
      specification = false;
      afterHyphen = false;
    } else if ((code >= 0x41 && code <= 0x5a) || code === 0x5f) {
      onlyDots = false;
      specification = false;
      afterHyphen = false;
    } else {
      return "refused";
    }
  }
  if (onlyDots) return "refused";
  return specification && !afterHyphen ? "specification" : "loadable";
}

function readDescription(
  data: Record<string, unknown>,
  context: { hasFrontMatter: boolean; body: string },
  problems: Findings,
): string | undefined {
  let raw = data.description;
  if (!context.hasFrontMatter) raw = firstParagraph(context.body);
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) {
    problems.fail("missing_description", "the skill has no description", "description");
    return undefined;
  }
  if (typeof raw !== "string") {
    problems.fail("invalid_field", `description must be text, not ${describeType(raw)}`, "description");
    return undefined;
  }
  const length = raw.length > MAX_DESCRIPTION_LENGTH ? codePointLength(raw) : raw.length;
  if (length > MAX_DESCRIPTION_LENGTH) {
    problems.add(
      "description_too_long",
      `description is ${length} characters; the limit is ${MAX_DESCRIPTION_LENGTH}`,
      "description",
    );
  }
  return raw;
}

function readOptionalString(
  data: Record<string, unknown>,
  key: string,
  problems: Findings,
): string | undefined {
  const raw = data[key];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw;
  problems.add("invalid_field", `${key} must be text, not ${describeType(raw)}`, key);
  return undefined;
}

function readMetadata(data: Record<string, unknown>, problems: Findings): Record<string, unknown> {
  const raw = data.metadata;
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) {
    problems.add("invalid_metadata", `metadata must be a mapping, not ${describeType(raw)}`, "metadata");
    return {};
  }
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    // parameters_schema may be a YAML mapping (a skillgate extension); everything else is text.
    if (typeof value !== "string" && key !== "parameters_schema" && key !== "skillgate.allowed-domains") {
      problems.add(
        "invalid_metadata",
        `metadata.${key} must be text, not ${describeType(value)}`,
        `metadata.${key}`,
      );
    }
  }
  return raw;
}

function readAllowedTools(data: Record<string, unknown>, problems: Findings): string[] {
  const raw = data["allowed-tools"];
  if (raw === undefined || raw === null) return [];
  if (typeof raw === "string") return splitAllowedTools(raw);
  if (Array.isArray(raw) && raw.every((tool) => typeof tool === "string")) {
    return raw.map((tool) => tool.trim()).filter((tool) => tool.length > 0);
  }
  problems.add(
    "invalid_allowed_tools",
    "allowed-tools must be space-separated text or a list of text",
    "allowed-tools",
  );
  return [];
}

/** allowed-tools given as text: its words, split on any white space. */
export function splitAllowedTools(raw: string): string[] {
  return SPACED_WORDS.test(raw) ? raw.split(" ") : splitOnWhiteSpace(raw);
}

/**
 * The runs of non-white-space characters in `text`, as `text.split(/\s+/)` without its
 * empty strings gives them (the same white space: ASCII, no-break, the Unicode spaces,
 * line and paragraph separators, a BOM), in an array of exactly their number: the list is
 * kept with every skill.
 */
export function splitOnWhiteSpace(text: string): string[] {
  let count = 0;
  let inRun = false;
  for (let index = 0; index < text.length; index += 1) {
    const space = isWhiteSpace(text.charCodeAt(index));
    if (!space && !inRun) count += 1;
    inRun = !space;
  }
  const runs = new Array<string>(count);
  let run = 0;
  let start = -1;
  for (let index = 0; index <= text.length; index += 1) {
    const space = index === text.length || isWhiteSpace(text.charCodeAt(index));
    if (space && start !== -1) {
      runs[run] = text.slice(start, index);
      run += 1;
      start = -1;
    } else if (!space && start === -1) {
      start = index;
    }
  }
  return runs;
}

/** What a regular expression's `\s` matches. */
function isWhiteSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return isUnicodeSpace(code);
}

/** The first paragraph of a body on one line: the description of a SKILL.md without front matter. */
export function firstParagraph(body: string): string {
  const paragraph = body.trim().split(/\n\s*\n/)[0] ?? "";
  return paragraph.replace(/\s+/g, " ").trim();
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `a ${typeof value}`;
}

function escapeForMessage(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * Collects diagnostics with the mode applied: `add` is a warning when lenient and an
 * error when strict; `fail` is always an error that stops loading; `warn` is a warning
 * when lenient.
 */
class Findings {
  /** Made on the first finding: most skills have none. */
  private list: Diagnostic[] | undefined;
  private loadErrors = 0;
  constructor(
    private readonly mode: ValidationMode,
    private readonly path: string | undefined,
  ) {}

  add(code: Diagnostic["code"], message: string, field: string): void {
    this.record(
      diagnostic(code, this.mode === "strict" ? "error" : "warning", message, { path: this.path, field }),
    );
  }

  warn(code: Diagnostic["code"], message: string, field: string): void {
    this.add(code, message, field);
  }

  fail(code: Diagnostic["code"], message: string, field: string, hint?: string): void {
    this.loadErrors += 1;
    this.record(diagnostic(code, "error", message, { path: this.path, field, hint }));
  }

  /** Everything found, in order (one shared frozen empty list when nothing was). */
  found(): readonly Diagnostic[] {
    return this.list ?? NOTHING_FOUND;
  }

  private record(item: Diagnostic): void {
    if (this.list === undefined) this.list = [item];
    else this.list.push(item);
  }

  hasLoadErrors(): boolean {
    return this.loadErrors > 0;
  }
}

/**
 * True for a name the Agent Skills specification allows: 1 to {@link MAX_NAME_LENGTH}
 * characters of lower-case a-z, 0-9 and single hyphens, not at the start or end.
 */
export function isValidSkillName(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(name);
}
