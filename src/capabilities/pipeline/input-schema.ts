import type { JsonValue } from "../../core/safe-json.js";
import { checkAgainstSchema } from "../../skill/schema-validate.js";
import type { CapabilityProvider } from "../types.js";
import { refuse, type StepResult } from "./invocation.js";
import { schemaOf } from "./schema-source.js";

/**
 * Step 3b, the input schema: the guarded payload against the provider's input schema (JSON
 * Schema 2020-12 through Ajv, each schema compiled once, skill/schema-validate.ts). A provider
 * without a readable input schema is never called: `capability_missing_schema`. A mismatch is
 * `input_invalid` with the sentence naming the field.
 */
export function checkInput(
  provider: CapabilityProvider,
  payload: { readonly [key: string]: JsonValue },
): StepResult<true> {
  const schema = schemaOf(provider.descriptor.inputSchema);
  if (schema === undefined)
    return refuse(
      "capability_missing_schema",
      `HOST: provider ${JSON.stringify(provider.descriptor.id)} has no usable input schema; nothing ran.`,
    );
  const checked = checkAgainstSchema(schema, payload, "payload");
  return checked.ok ? { ok: true, value: true } : refuse("input_invalid", checked.message);
}
