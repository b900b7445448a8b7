import { type JsonValue, sanitizeJson } from "../../core/safe-json.js";
import { checkAgainstSchema } from "../../skill/schema-validate.js";
import type { CapabilityProvider } from "../types.js";
import { refuse, type StepResult } from "./invocation.js";
import { schemaOf } from "./schema-source.js";

/** The largest output a provider may answer with: 1 MiB of JSON. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** The checked output and its size in bytes of JSON. */
export interface CheckedOutput {
  readonly output: JsonValue;
  readonly bytes: number;
}

/**
 * Step 6, the output schema: what the provider answered must be JSON (a copy is taken, without
 * prototype-polluting keys), at most {@link MAX_OUTPUT_BYTES}, and must pass the provider's
 * output schema; anything else is `output_invalid`, and the caller never sees the output.
 */
export function checkOutput(provider: CapabilityProvider, output: unknown): StepResult<CheckedOutput> {
  const id = JSON.stringify(provider.descriptor.id);
  const schema = schemaOf(provider.descriptor.outputSchema);
  if (schema === undefined)
    return refuse(
      "capability_missing_schema",
      `HOST: provider ${id} has no usable output schema; its answer was dropped.`,
    );
  let clean: JsonValue;
  let bytes: number;
  try {
    clean = sanitizeJson(output);
    bytes = Buffer.byteLength(JSON.stringify(clean) ?? "", "utf8");
  } catch {
    return refuse("output_invalid", `HOST: provider ${id} answered with something that is not JSON.`);
  }
  if (bytes > MAX_OUTPUT_BYTES)
    return refuse(
      "output_invalid",
      `HOST: provider ${id} answered with ${bytes} bytes; the limit is ${MAX_OUTPUT_BYTES}.`,
    );
  const checked = checkAgainstSchema(schema, clean, "output");
  if (!checked.ok)
    return refuse(
      "output_invalid",
      `HOST: provider ${id} answered outside its output schema: ${checked.message.replace(/^HOST: /, "")}`,
    );
  return { ok: true, value: { output: clean, bytes } };
}
