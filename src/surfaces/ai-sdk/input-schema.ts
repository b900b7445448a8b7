import { type JSONSchema7, jsonSchema, type Schema } from "ai";
import { InvalidArgumentError } from "../../core/errors.js";
import type { JsonValue } from "../../core/safe-json.js";
import type { JsonSchema } from "../../skill/parameters-schema.js";
import { checkAgainstSchema } from "../../tools/input.js";
import type { AnyTool } from "../../tools/tool.js";

/**
 * A tool call's input as the AI SDK hands it to `execute`: the model's JSON object, unchanged
 * (or, for the tools whose broker reads JSON text holding the object, that text).
 */
export type SkillgateToolInput = { readonly [key: string]: JsonValue } | string;

/**
 * The schema the broker reads a call's input against before any repair: the tool's own
 * `acceptedSchema` where it is looser than the advertised one, so every input the broker
 * can repair reaches it.
 */
export function acceptedSchema(tool: AnyTool): JsonSchema {
  return tool.acceptedSchema ?? tool.inputSchema;
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
