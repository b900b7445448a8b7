import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "./parameters-schema.js";
import { jsonSchemaProblem } from "./schema-check.js";

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();
// Schemas come from skills; a bounded cache keeps a long-running server from growing without end.
const MAX_COMPILED = 2_000;

// The same schema object comes back on every call of a tool (and of a skill while it is
// unchanged): found by identity without writing the schema out as text each time.
const byObject = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * The validator of `schema`, compiled on first use. Ajv's own meta-validation is off: the
 * schema is checked first against the meta-schema validator compiled ahead of time
 * (skill/schema-check.ts), so a first call never compiles the 2020-12 meta-schema.
 */
function validatorFor(schema: JsonSchema): ValidateFunction {
  const known = byObject.get(schema);
  if (known !== undefined) return known;
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    const problem = jsonSchemaProblem(schema);
    if (problem !== undefined) throw new Error(`schema is invalid: ${problem}`);
    ajv ??= new Ajv2020({ strict: false, allErrors: false, validateFormats: false, validateSchema: false });
    validate = ajv.compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, validate);
  }
  byObject.set(schema, validate);
  return validate;
}

/**
 * Compiles the validators of `schemas` now (a turn's tool input schemas, when the turn is
 * built), so the first call of each tool finds its validator ready. A schema that cannot be
 * compiled is left for the call to report.
 */
export function prepareValidators(schemas: Iterable<JsonSchema>): void {
  for (const schema of schemas) {
    try {
      validatorFor(schema);
    } catch {
      // Reported by checkAgainstSchema when a call uses it.
    }
  }
}

/**
 * Checks `value` against a JSON Schema. A mismatch is a `HOST:` message naming the field
 * (`label` is the name of the whole value, such as `arguments`); a schema that cannot be
 * compiled is reported the same way rather than thrown.
 */
export function checkAgainstSchema(
  schema: JsonSchema,
  value: unknown,
  label: string,
): { ok: true } | { ok: false; message: string } {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return {
      ok: false,
      message: `HOST: the schema for ${label} cannot be used (${error instanceof Error ? error.message : String(error)}); tell the skill's owner.`,
    };
  }
  if (validate(value)) return { ok: true };
  const first = validate.errors?.[0];
  return {
    ok: false,
    message:
      first === undefined ? `HOST: ${label} does not match its schema.` : describeSchemaError(first, label),
  };
}

/** One Ajv error as a sentence a small model can act on. */
export function describeSchemaError(error: ErrorObject, label: string): string {
  const field = fieldName(label, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `HOST: ${field} is missing "${String(params.missingProperty)}".`;
    case "additionalProperties":
      return `HOST: ${field} has a field "${String(params.additionalProperty)}" that is not allowed.`;
    case "type":
      return `HOST: ${field} must be ${article(String(params.type))}.`;
    case "enum":
      return `HOST: ${field} must be one of ${JSON.stringify(params.allowedValues)}.`;
    case "const":
      return `HOST: ${field} must be ${JSON.stringify(params.allowedValue)}.`;
    default:
      return `HOST: ${field} ${error.message ?? "does not match its schema"}.`;
  }
}

function fieldName(label: string, instancePath: string): string {
  if (instancePath === "") return label;
  const parts = instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : `${name}.${part}`), label);
}

function article(type: string): string {
  return type === "object" || type === "array" || type === "integer" ? `an ${type}` : `a ${type}`;
}
