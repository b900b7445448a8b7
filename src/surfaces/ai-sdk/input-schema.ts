import { type JSONSchema7, jsonSchema, type Schema } from "ai";
import { InvalidArgumentError } from "../../core/errors.js";
import { isPlainObject, type JsonValue } from "../../core/safe-json.js";
import type { JsonSchema } from "../../skill/parameters-schema.js";
import { checkAgainstSchema } from "../../tools/input.js";
import type { AnyTool } from "../../tools/tool.js";

/**
 * A tool call's input as the AI SDK hands it to `execute`: the model's JSON object, unchanged
 * (or, for the tools whose broker reads JSON text holding the object, that text).
 */
export type SkillgateToolInput = { readonly [key: string]: JsonValue } | string;

/** What the broker reads itself, before any schema, for one tool. */
interface BrokerReading {
  /** Top-level fields it takes in any JSON form and normalises (or refuses with its own sentence). */
  readonly fields?: readonly string[];
  /** Whether the whole input may be JSON text holding the object. */
  readonly text?: boolean;
}

/**
 * Where the broker is more lenient than a tool's advertised schema, because it repairs or
 * reads the input itself (docs/tools.md, "Script arguments"; docs/drafts-and-edits.md):
 * `run_skill_script`'s `arguments` may be JSON text, `null` or missing and its `node` may sit
 * beside `arguments`; `draft_skill` and `edit_skill` take their whole input as JSON text too.
 * The SDK must let these through to the broker, which repairs them or answers with its own
 * `HOST:` sentence (and an audit event).
 */
const READ_BY_THE_BROKER: Readonly<Record<string, BrokerReading>> = {
  run_skill_script: { fields: ["arguments", "node"] },
  draft_skill: { text: true },
  edit_skill: { text: true },
};

/**
 * The schema the broker reads a call's input against before any repair: the advertised
 * schema, with what the broker reads itself accepted in any form. Never stricter than the
 * broker, so every input it can repair reaches it.
 */
export function acceptedSchema(tool: AnyTool): JsonSchema {
  const reading = READ_BY_THE_BROKER[tool.name];
  if (reading === undefined) return tool.inputSchema;
  let schema = tool.inputSchema;
  const properties = schema.properties;
  if (reading.fields !== undefined && isPlainObject(properties)) {
    const widened = { ...properties } as { [key: string]: JsonValue };
    for (const field of reading.fields) if (field in widened) widened[field] = {};
    schema = { ...schema, properties: widened };
  }
  // The object first: a mismatch is then described by the object's first problem.
  return reading.text === true ? { anyOf: [schema, { type: "string" }] } : schema;
}

/**
 * The AI SDK input schema of a skillgate tool: the provider is sent the advertised schema
 * (objects where objects belong, so models are steered to the right shape), and each call's
 * input is validated with Ajv against {@link acceptedSchema}. A mismatch fails with the
 * broker's own `HOST:` sentence (`HOST: the input is missing "skill".`); a match is handed on
 * unchanged, so the broker reads, repairs and audits the input exactly as the model sent it.
 */
export function toolInputSchema(tool: AnyTool): Schema<SkillgateToolInput> {
  const accepted = acceptedSchema(tool);
  return jsonSchema<SkillgateToolInput>(tool.inputSchema as JSONSchema7, {
    validate: (value) => {
      const checked = checkAgainstSchema(accepted, value ?? {}, "the input");
      return checked.ok
        ? { success: true, value: (value ?? {}) as SkillgateToolInput }
        : { success: false, error: new InvalidArgumentError(tool.name, checked.message) };
    },
  });
}
