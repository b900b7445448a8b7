import { diagnostic } from "../../core/diagnostics.js";
import { MAX_DESCRIPTION_LENGTH } from "../../core/limits.js";
import { isPlainObject } from "../../core/safe-json.js";
import { codePointLength } from "../../core/text.js";
import { canonicalHost, EXECUTION_MODES, GOVERNANCE_KEYS, TIERS } from "../../skill/governance.js";
import { readParametersSchema } from "../../skill/parameters-schema.js";
import { SKILL_FILE } from "../../skill/read-skill-file.js";
import { schemaText } from "../edits/edit-arguments.js";
import { buildSkillFile } from "../edits/front-matter-edit.js";
import {
  BuiltinReadOnlyError,
  DraftLockedError,
  SkillExistsError,
  SkillInvalidError,
  SkillNotFoundError,
  StoreArgumentError,
  TooManyDomainsError,
  TooManyFilesError,
} from "../errors.js";
import { checkTextFiles } from "../file-sets.js";
import { MAX_DOMAINS, MAX_DRAFT_FILES } from "../limits.js";
import { formatReviewWarnings, lintSkillFiles } from "../lint/lint-skill.js";
import type { LintWarning } from "../lint/lint-types.js";
import { checkSkillName } from "../paths.js";
import type { Store } from "../store.js";
import type { ChangeResult } from "../store-types.js";
import type { DraftInput } from "./draft-arguments.js";
import {
  ASSISTANT_AUTHOR,
  DRAFT_KEYS,
  MAX_CHAT_ID_LENGTH,
  MAX_RATIONALE_LENGTH,
  MAX_SOURCE_CHATS,
  RationaleTooLongError,
  TooManySourceChatsError,
} from "./draft-keys.js";
import { draftLockReason } from "./draft-state.js";

/** Top folders a draft's files may be in (the Agent Skills layout). */
const DRAFT_FOLDERS = ["scripts/", "references/", "assets/"];

/** What {@link draftSkill} did. */
export interface DraftResult extends ChangeResult {
  /** True for a new draft, false for a rewrite of the assistant's own draft. */
  readonly created: boolean;
  /** The review lint warnings, also written into `skillgate.review-warnings`. */
  readonly warnings: readonly LintWarning[];
}

/**
 * Saves an assistant's draft (docs/drafts-and-edits.md, "Drafts"): always disabled, with source
 * `assistant`, and SKILL.md metadata `skillgate.author: assistant`, `skillgate.source-chats`,
 * `skillgate.rationale` and `skillgate.review-warnings` (the review lint, joined). At most
 * {@link MAX_DRAFT_FILES} files (SKILL.md included), {@link MAX_SOURCE_CHATS} source chats and
 * {@link MAX_RATIONALE_LENGTH} characters of rationale; a bad `parametersSchema` refuses the draft
 * (`skill_invalid`). The store checks it like any skill, scripts included. Without `update`, a
 * taken name is `skill_exists`; with it, only the assistant's own untouched draft may be rewritten
 * (`draft_locked` otherwise, `not_found` if none).
 */
export async function draftSkill(store: Store, input: DraftInput): Promise<DraftResult> {
  const name = checkSkillName(input.name);
  if (store.isBuiltIn(name)) throw new BuiltinReadOnlyError(name);
  const files = draftFiles(name, input);
  const warnings = lintSkillFiles(files);
  if (warnings.length > 0) {
    files[SKILL_FILE] = skillFileOf(name, input, formatReviewWarnings(warnings));
  }
  const existing = (await store.list()).find((skill) => skill.name === name);
  if (input.update !== true) {
    if (existing !== undefined) throw new SkillExistsError(name);
    const result = await store.create(name, files, { source: "assistant", enabled: false });
    return { ...result, created: true, warnings };
  }
  if (existing === undefined) throw new SkillNotFoundError("skill", name);
  const reason = await draftLockReason(store, name);
  if (reason !== undefined) throw new DraftLockedError(name, reason);
  const result = await store.updateFiles(
    name,
    { write: files, replaceAll: true },
    { expectedHash: (await store.get(name)).hash, author: "assistant" },
  );
  return { ...result, created: false, warnings };
}

/** Checks the input and builds every file of the draft, SKILL.md (without warnings) first. */
function draftFiles(name: string, input: DraftInput): Record<string, string> {
  const given = input.files ?? {};
  const paths = Object.keys(given);
  if (paths.length + 1 > MAX_DRAFT_FILES) throw new TooManyFilesError(paths.length + 1, MAX_DRAFT_FILES);
  checkTextFiles(given, "files");
  for (const path of paths) {
    if (path === SKILL_FILE)
      throw new StoreArgumentError(
        "files",
        "a draft's SKILL.md is built from its name, description and body",
      );
    if (!DRAFT_FOLDERS.some((folder) => path.startsWith(folder)))
      throw new StoreArgumentError("files", `${path} must be under ${DRAFT_FOLDERS.join(", ")}`);
  }
  const files: Record<string, string> = {};
  Object.defineProperty(files, SKILL_FILE, {
    value: skillFileOf(name, input, ""),
    enumerable: true,
    writable: true,
  });
  for (const path of paths) Object.defineProperty(files, path, { value: given[path], enumerable: true });
  return files;
}

/** The draft's SKILL.md: name, description, the draft keys, governance keys, then the body. */
function skillFileOf(name: string, input: DraftInput, reviewWarnings: string): string {
  const metadata: Record<string, string> = { [DRAFT_KEYS.author]: ASSISTANT_AUTHOR };
  const chats = sourceChats(input.sourceChats);
  if (chats.length > 0) metadata[DRAFT_KEYS.sourceChats] = chats.join(",");
  metadata[DRAFT_KEYS.rationale] = rationale(input.rationale);
  if (reviewWarnings !== "") metadata[DRAFT_KEYS.reviewWarnings] = reviewWarnings;
  if (input.tier !== undefined) metadata[GOVERNANCE_KEYS.tier] = choice("tier", input.tier, TIERS);
  if (input.execution !== undefined)
    metadata[GOVERNANCE_KEYS.execution] = choice("execution", input.execution, EXECUTION_MODES);
  if (input.allowedDomains !== undefined && input.allowedDomains.length > 0)
    metadata[GOVERNANCE_KEYS.allowedDomains] = domains(input.allowedDomains);
  if (input.parametersSchema !== undefined)
    metadata[GOVERNANCE_KEYS.parametersSchema] = schema(name, input.parametersSchema);
  if (typeof input.body !== "string") throw new StoreArgumentError("body", "body must be text");
  return buildSkillFile({ name, description: description(input.description), metadata, body: input.body });
}

function description(value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "" || codePointLength(text) > MAX_DESCRIPTION_LENGTH)
    throw new StoreArgumentError(
      "description",
      `description must be 1 to ${MAX_DESCRIPTION_LENGTH} characters`,
    );
  return text;
}

function sourceChats(value: unknown): string[] {
  if (!Array.isArray(value))
    throw new StoreArgumentError("sourceChats", "sourceChats must be a list of chat ids");
  const chats = [...new Set(value)];
  if (chats.length > MAX_SOURCE_CHATS) throw new TooManySourceChatsError(chats.length, MAX_SOURCE_CHATS);
  for (const chat of chats) {
    if (typeof chat !== "string" || !/^[A-Za-z0-9._:@-]+$/.test(chat) || chat.length > MAX_CHAT_ID_LENGTH)
      throw new StoreArgumentError(
        "sourceChats",
        `chat ids are 1 to ${MAX_CHAT_ID_LENGTH} of A-Z, a-z, 0-9 and . _ : @ - (got ${JSON.stringify(chat)})`,
      );
  }
  return chats as string[];
}

function rationale(value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") throw new StoreArgumentError("rationale", "a draft needs a rationale the owner can read");
  const length = codePointLength(text);
  if (length > MAX_RATIONALE_LENGTH) throw new RationaleTooLongError(length, MAX_RATIONALE_LENGTH);
  return text;
}

function choice(field: string, value: unknown, choices: readonly string[]): string {
  if (typeof value !== "string" || !choices.includes(value))
    throw new StoreArgumentError(field, `${field} must be one of ${choices.join(", ")}`);
  return value;
}

function domains(value: readonly unknown[]): string {
  if (!Array.isArray(value))
    throw new StoreArgumentError("allowedDomains", "allowedDomains must be a list of hosts");
  if (value.length > MAX_DOMAINS) throw new TooManyDomainsError(value.length, MAX_DOMAINS);
  for (const host of value) {
    if (typeof host !== "string" || canonicalHost(host) === undefined)
      throw new StoreArgumentError("allowedDomains", `${JSON.stringify(host)} is not a host name`);
  }
  return value.join(", ");
}

/** A schema given as an object or JSON text, checked, in compact JSON form; a bad one is `skill_invalid`. */
function schema(name: string, value: unknown): string {
  const read = readParametersSchema(isPlainObject(value) || typeof value === "string" ? value : []);
  if (read.problem !== undefined)
    throw new SkillInvalidError(name, [
      diagnostic("invalid_parameters_schema", "error", read.problem, { field: "metadata.parameters_schema" }),
    ]);
  const text = schemaText(read.schema);
  if (text !== undefined) return text;
  throw new SkillInvalidError(name, [
    diagnostic("invalid_parameters_schema", "error", "parametersSchema is empty", {
      field: "metadata.parameters_schema",
    }),
  ]);
}
