import { EXECUTION_MODES, type ExecutionMode, TIERS, type Tier } from "../../skill/governance.js";
import {
  type ArgumentSpec,
  type ArgumentsReader,
  readStrictArguments,
  refuse,
} from "../edits/strict-arguments.js";
import { MAX_SKILL_BYTES } from "../limits.js";

/** What `draftSkill` takes: the `draft_skill` tool's fields (docs/drafts-and-edits.md, "Drafts"). */
export interface DraftInput {
  readonly name: string;
  readonly description: string;
  /** The SKILL.md body (the instructions); the front matter is built from the other fields. */
  readonly body: string;
  /** Other files, path → text, under `scripts/`, `references/` or `assets/`. */
  readonly files?: Readonly<Record<string, string>>;
  readonly tier?: Tier;
  readonly execution?: ExecutionMode;
  readonly allowedDomains?: readonly string[];
  /** A JSON Schema object, or JSON text holding one; stored in compact form. */
  readonly parametersSchema?: Readonly<Record<string, unknown>> | string;
  /** The chats that motivated the draft, at most 10. */
  readonly sourceChats: readonly string[];
  /** Why, at most 1,000 characters. */
  readonly rationale: string;
  /** Rewrite the assistant's own untouched draft of this name instead of creating one. */
  readonly update?: boolean;
}

/** What `draft_skill` takes. Names are case-sensitive. */
export const DRAFT_ARGUMENT_SPEC: ArgumentSpec = {
  name: { type: "string", required: true },
  description: { type: "string", required: true },
  body: { type: "string", required: true },
  files: { type: "text-map" },
  tier: { type: "string" },
  execution: { type: "string" },
  allowedDomains: { type: "string-list" },
  parametersSchema: { type: "object-or-json" },
  sourceChats: { type: "string-list", required: true },
  rationale: { type: "string", required: true },
  update: { type: "boolean" },
};

const READER: ArgumentsReader = {
  tool: "draft_skill",
  code: "invalid_draft_arguments",
  maxTextLength: 2 * MAX_SKILL_BYTES,
};

/**
 * Reads `draft_skill` arguments (an object, or JSON text holding one) strictly, like
 * `edit_skill`'s: case-sensitive names, no repeated or unknown field, each value of its
 * type; problems throw `invalid_draft_arguments` with a `HOST:` message naming the field.
 * Limits (files, chats, rationale) are checked by `draftSkill`, with their own codes.
 */
export function readDraftArguments(raw: unknown): DraftInput {
  const fields = readStrictArguments(raw, DRAFT_ARGUMENT_SPEC, READER);
  for (const [field, choices] of [
    ["tier", TIERS],
    ["execution", EXECUTION_MODES],
  ] as const) {
    const value = fields[field];
    if (value !== undefined && !(choices as readonly unknown[]).includes(value))
      refuse(
        READER,
        field,
        `draft_skill ${field} must be one of ${choices.join(", ")}, not ${JSON.stringify(value)}.`,
      );
  }
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    Object.defineProperty(input, key, { value, enumerable: true });
  return input as unknown as DraftInput;
}
