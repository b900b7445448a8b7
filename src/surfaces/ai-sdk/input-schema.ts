import { type JSONSchema7, jsonSchema, type Schema } from "ai";
import { InvalidArgumentError } from "../../core/errors.js";
import { isPlainObject, type JsonValue } from "../../core/safe-json.js";
import type { JsonSchema } from "../../skill/parameters-schema.js";
import { checkAgainstSchema } from "../../tools/input.js";
import type { AnyTool } from "../../tools/tool.js";

/** A tool call's input as the AI SDK hands it to `execute`: the model's JSON object, unchanged. */
export type SkillgateToolInput = { readonly [key: string]: JsonValue };

/**
 * Top-level fields the broker reads in any JSON form and normalises itself (docs/tools.md,
 * "Script arguments"): `run_skill_script`'s `arguments` may be JSON text, `null` or missing,
 * and its `node` may sit beside `arguments`; anything else there gets the broker's own
 * `HOST:` sentence. The SDK must let these through, so they are left unchecked here, exactly
 * as the broker's first read leaves them.
 */
const NORMALISED_BY_THE_BROKER: Readonly<Record<string, readonly string[]>> = {
  run_skill_script: ["arguments", "node"],
};

/**
 * The schema the broker reads a call's input against before any repair: the advertised
 * schema, with the fields the broker normalises itself accepted in any form. Never stricter
 * than the broker, so every input it can repair reaches it.
 */
export function acceptedSchema(tool: AnyTool): JsonSchema {
  const loose = NORMALISED_BY_THE_BROKER[tool.name];
  const properties = tool.inputSchema.properties;
  if (loose === undefined || !isPlainObject(properties)) return tool.inputSchema;
  const widened = { ...properties } as { [key: string]: JsonValue };
  for (const field of loose) if (field in widened) widened[field] = {};
  return { ...tool.inputSchema, properties: widened };
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
