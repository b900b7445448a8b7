import { codePointLength } from "../../core/text.js";
import {
  canonicalHost,
  EXECUTION_MODES,
  type ExecutionMode,
  TIERS,
  type Tier,
} from "../../skill/governance.js";
import {
  compactSchema,
  type JsonSchema,
  type ParametersSchema,
  readParametersSchema,
} from "../../skill/parameters-schema.js";
import { SKILL_FILE } from "../../skill/read-skill-file.js";
import { isStoreError } from "../errors.js";
import { MAX_DOMAINS, MAX_SKILL_BYTES } from "../limits.js";
import { checkPathSet, checkRelativePath, checkSkillName } from "../paths.js";
import { type ArgumentSpec, type ArgumentsReader, readStrictArguments, refuse } from "./strict-arguments.js";

/**
 * The `edit_skill` arguments (docs/drafts-and-edits.md, "Edits", step 1), read once and exactly
 * into {@link EditArguments}: that one reading becomes the plan the owner sees as a diff and the
 * plan written on approval. Nothing is re-read from the model.
 */

/** Longest `reason`, in characters. */
export const MAX_EDIT_REASON_LENGTH = 1_000;
/** Longest `description`, in characters (the Agent Skills limit). */
export const MAX_EDIT_DESCRIPTION_LENGTH = 1_024;

/** What `edit_skill` takes. Names are case-sensitive. */
export const EDIT_ARGUMENT_SPEC: ArgumentSpec = {
  skillName: { type: "string", required: true },
  files: { type: "text-map" },
  removeFiles: { type: "string-list" },
  description: { type: "string" },
  tier: { type: "string" },
  execution: { type: "string" },
  allowedDomains: { type: "string-list" },
  parametersSchema: { type: "object-or-json" },
  reason: { type: "string", required: true },
};

const READER: ArgumentsReader = {
  tool: "edit_skill",
  code: "invalid_edit_arguments",
  // The files of a whole skill (5 MiB), JSON-escaped, with room for the other fields.
  maxTextLength: 2 * MAX_SKILL_BYTES,
};

/** A proposed change to one skill, as read from `edit_skill`. */
export interface EditArguments {
  readonly skillName: string;
  /** Text files to create or replace, path → content (empty when none). */
  readonly files: Readonly<Record<string, string>>;
  /** Files to remove (empty when none). */
  readonly removeFiles: readonly string[];
  readonly description?: string;
  readonly tier?: Tier;
  readonly execution?: ExecutionMode;
  /** The new host list; an empty list removes `skillgate.allowed-domains`. */
  readonly allowedDomains?: readonly string[];
  /** The new `parameters_schema`, checked and in compact JSON form. */
  readonly parametersSchema?: string;
  /** Why, in the model's words; shown to the owner with the diff. */
  readonly reason: string;
}

/**
 * Reads `edit_skill` arguments (an object, or JSON text holding one). Every problem throws
 * `invalid_edit_arguments` with a message starting `HOST:` that names the field.
 */
export function readEditArguments(raw: unknown): EditArguments {
  const fields = readStrictArguments(raw, EDIT_ARGUMENT_SPEC, READER);
  const skillName = fields.skillName as string;
  guardStore("skillName", () => checkSkillName(skillName));
  const files = (fields.files ?? {}) as Record<string, string>;
  const removeFiles = (fields.removeFiles ?? []) as string[];
  for (const path of Object.keys(files))
    guardStore(`files["${path}"]`, () => checkRelativePath(path), "files");
  guardStore("files", () => checkPathSet(Object.keys(files)), "files");
  for (const path of removeFiles) {
    guardStore("removeFiles", () => checkRelativePath(path));
    if (path === SKILL_FILE)
      refuse(READER, "removeFiles", "edit_skill cannot remove SKILL.md; a skill needs it.");
    if (Object.hasOwn(files, path))
      refuse(READER, "removeFiles", `edit_skill both writes and removes "${path}"; choose one.`);
  }
  const reason = (fields.reason as string).trim();
  if (reason === "") refuse(READER, "reason", "edit_skill needs a reason the owner can read.");
  if (codePointLength(reason) > MAX_EDIT_REASON_LENGTH)
    refuse(READER, "reason", `edit_skill reason is longer than ${MAX_EDIT_REASON_LENGTH} characters.`);
  const result: { -readonly [K in keyof EditArguments]: EditArguments[K] } = {
    skillName,
    files,
    removeFiles,
    reason,
  };
  if (fields.description !== undefined) result.description = readDescription(fields.description as string);
  if (fields.tier !== undefined) result.tier = readChoice("tier", fields.tier as string, TIERS);
  if (fields.execution !== undefined)
    result.execution = readChoice("execution", fields.execution as string, EXECUTION_MODES);
  if (fields.allowedDomains !== undefined) {
    const domains = fields.allowedDomains as string[];
    if (domains.length > MAX_DOMAINS)
      refuse(
        READER,
        "allowedDomains",
        `edit_skill allowedDomains lists ${domains.length} hosts; the limit is ${MAX_DOMAINS}.`,
      );
    for (const host of domains) {
      if (canonicalHost(host) === undefined)
        refuse(
          READER,
          "allowedDomains",
          `edit_skill allowedDomains has ${JSON.stringify(host)}, which is not a host name.`,
        );
    }
    result.allowedDomains = domains;
  }
  if (fields.parametersSchema !== undefined)
    result.parametersSchema = readSchema(fields.parametersSchema as Record<string, unknown>, READER);
  const changes =
    Object.keys(files).length +
    removeFiles.length +
    ["description", "tier", "execution", "allowedDomains", "parametersSchema"].filter((key) => key in result)
      .length;
  if (changes === 0)
    refuse(READER, undefined, "edit_skill changes nothing; send files, removeFiles or a new setting.");
  return result;
}

/** Checks a parameters schema given as an object and returns it in compact JSON form. */
export function readSchema(value: Record<string, unknown>, reader: ArgumentsReader): string {
  const read = readParametersSchema(value);
  if (read.problem !== undefined)
    refuse(reader, "parametersSchema", `${reader.tool} parametersSchema: ${read.problem}.`);
  return (
    schemaText(read.schema) ?? refuse(reader, "parametersSchema", `${reader.tool} parametersSchema is empty.`)
  );
}

/** A declared schema in the compact JSON form `parameters_schema` is stored in; `undefined` for none. */
export function schemaText(schema: ParametersSchema): string | undefined {
  if (schema.kind === "shared") return compactSchema(schema.schema);
  if (schema.kind === "per-script") return compactSchema(schema.schemas as JsonSchema);
  return undefined;
}

function readDescription(text: string): string {
  const description = text.trim();
  if (description === "" || codePointLength(description) > MAX_EDIT_DESCRIPTION_LENGTH)
    refuse(
      READER,
      "description",
      `edit_skill description must be 1 to ${MAX_EDIT_DESCRIPTION_LENGTH} characters.`,
    );
  return description;
}

function readChoice<Choice extends string>(field: string, value: string, choices: readonly Choice[]): Choice {
  if (!(choices as readonly string[]).includes(value))
    refuse(
      READER,
      field,
      `edit_skill ${field} must be one of ${choices.join(", ")}, not ${JSON.stringify(value)}.`,
    );
  return value as Choice;
}

/** Runs a store check and turns its refusal into this reader's `HOST:` refusal naming `label`. */
function guardStore(label: string, check: () => unknown, field = label): void {
  try {
    check();
  } catch (error) {
    if (!isStoreError(error)) throw error;
    refuse(READER, field, `edit_skill ${label}: ${error.message}.`);
  }
}
