import type { ErrorObject } from "ajv";
import { validateJsonSchemaDocument } from "./generated/json-schema-2020.js";

/** The only meta-schema a schema may name; Ajv would refuse any other. */
export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/**
 * Why `schema` is not a valid JSON Schema 2020-12 document, in Ajv's words
 * (`data/properties/a/minLength must be >= 0`), or undefined when it is one. The check runs
 * the meta-schema's validator compiled ahead of time (skill/generated/, written by
 * scripts/generate-schema-validators.mjs), so no call ever compiles the meta-schema itself.
 * A `$schema` other than 2020-12 is a problem too. Never throws for a plain JSON value;
 * an error thrown for a pathological one (nesting past the stack) is the caller's to report.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (
    typeof schema === "object" &&
    schema !== null &&
    "$schema" in schema &&
    schema.$schema !== undefined &&
    schema.$schema !== DRAFT_2020_12
  ) {
    return `no schema with key or ref "${String(schema.$schema)}"`;
  }
  if (validateJsonSchemaDocument(schema)) return undefined;
  return errorsText(validateJsonSchemaDocument.errors ?? []);
}

/** Ajv's `errorsText` with its defaults: `data<path> <message>`, joined by commas. */
function errorsText(errors: readonly ErrorObject[]): string {
  if (errors.length === 0) return "No errors";
  return errors.map((error) => `data${error.instancePath} ${error.message ?? ""}`.trimEnd()).join(", ");
}
