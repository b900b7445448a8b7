import { MAX_SCHEMA_DEPTH } from "../core/limits.js";
import { isPlainObject, type JsonValue, sanitizeJson } from "../core/safe-json.js";
import { parseRelativePath } from "../core/safe-paths.js";
import type { ExecutionMode } from "./governance.js";
import { DRAFT_2020_12, jsonSchemaProblem } from "./schema-check.js";

/** A JSON Schema object (2020-12) describing a script's arguments object. */
export type JsonSchema = { readonly [key: string]: JsonValue };

/**
 * A skill's declared `parameters_schema`: nothing, one schema for every script, or a map
 * from script path (`scripts/verify.py`) to its schema.
 */
export type ParametersSchema =
  | { readonly kind: "none" }
  | { readonly kind: "shared"; readonly schema: JsonSchema }
  | { readonly kind: "per-script"; readonly schemas: Readonly<Record<string, JsonSchema>> };

/**
 * Reads `parameters_schema` as a YAML mapping or JSON text. A bad value yields `problem`
 * (reported as `invalid_parameters_schema`) and the schema `{ kind: "none" }`. Never
 * throws: the value is user content.
 */
export function readParametersSchema(raw: unknown): { schema: ParametersSchema; problem?: string } {
  if (raw === undefined || raw === null) return { schema: { kind: "none" } };
  try {
    return readDeclared(raw);
  } catch (error) {
    return invalid(
      `parameters_schema cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function readDeclared(raw: unknown): { schema: ParametersSchema; problem?: string } {
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      // Plain JSON.parse, not a reviver: V8 parses iteratively, a reviver recurses and a
      // deeply nested text would overflow the stack. Forbidden keys go in sanitizeJson.
      value = JSON.parse(raw);
    } catch {
      return invalid("parameters_schema is text but not valid JSON");
    }
  }
  if (!isPlainObject(value)) return invalid("parameters_schema must be a JSON Schema object");
  if (nestedDeeperThan(value, MAX_SCHEMA_DEPTH)) {
    return invalid(`parameters_schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  const clean = sanitizeJson(value) as JsonSchema;
  if ("type" in clean) {
    const problem = checkSchema(clean, "parameters_schema");
    return problem === undefined ? { schema: { kind: "shared", schema: clean } } : invalid(problem);
  }
  const schemas: Record<string, JsonSchema> = {};
  for (const [script, schema] of Object.entries(clean)) {
    if (!isSafeScriptPath(script))
      return invalid(`parameters_schema names "${script}", which is not a path inside the skill`);
    if (!isPlainObject(schema))
      return invalid(`parameters_schema for ${script} must be a JSON Schema object`);
    const problem = checkSchema(schema as JsonSchema, `parameters_schema for ${script}`);
    if (problem !== undefined) return invalid(problem);
    schemas[script] = schema as JsonSchema;
  }
  if (Object.keys(schemas).length === 0)
    return invalid('parameters_schema must have "type": "object" or map script paths to schemas');
  return { schema: { kind: "per-script", schemas } };
}

/** True when objects and arrays in `value` nest deeper than `limit`; iterative, so any depth is safe to ask about. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth > limit) return true;
    for (const inner of Object.values(item.value)) pending.push({ value: inner, depth: item.depth + 1 });
  }
  return false;
}

function invalid(problem: string): { schema: ParametersSchema; problem: string } {
  return { schema: { kind: "none" }, problem };
}

function checkSchema(schema: JsonSchema, label: string): string | undefined {
  if (schema.type !== "object") return `${label} must have "type": "object"`;
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12) {
    return `${label} names $schema ${JSON.stringify(schema.$schema)}; only ${DRAFT_2020_12} is supported`;
  }
  try {
    // The meta-schema's validator is compiled ahead of time (skill/schema-check.ts): reading a
    // skill that declares a schema compiles nothing.
    const problem = jsonSchemaProblem(schema);
    if (problem !== undefined) return `${label} is not a valid JSON Schema: ${problem}`;
  } catch (error) {
    // Ajv throws instead of answering for some inputs (a schema nested past the stack); a
    // skill's schema is user content, so that is a finding, never an exception.
    return `${label} cannot be checked as a JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

function isSafeScriptPath(path: string): boolean {
  return parseRelativePath(path).ok;
}

const NODE_PROPERTY: JsonSchema = { type: "string", description: "The managed server to run on, by name." };

/**
 * `argv` in every mode's default schema: the script's command-line arguments, passed after its
 * path (docs/running-scripts.md, "Arguments"). A declared schema is taken as written: it lists
 * `argv` itself when its scripts take one (and one with `additionalProperties: false` that
 * does not list it refuses an `argv`).
 */
export const ARGV_PROPERTY: JsonSchema = {
  type: "array",
  items: { type: "string" },
  description:
    'Command-line arguments for the script, passed after its path, as its instructions show them: "scripts/check.py input.pdf" is {"argv": ["input.pdf"]}.',
};

/**
 * The schema a script's arguments are checked against: the declared one for that script
 * (or the shared one), else the execution mode's default, which has an optional `argv`
 * ({@link ARGV_PROPERTY}; the sandbox's also an optional `node`). A `node` skill always
 * requires a `node` string; a declared schema gets it added.
 */
export function effectiveSchema(
  declared: ParametersSchema,
  execution: ExecutionMode,
  scriptPath: string,
): JsonSchema {
  const own =
    declared.kind === "shared"
      ? declared.schema
      : declared.kind === "per-script"
        ? declared.schemas[scriptPath]
        : undefined;
  if (execution === "node")
    return withRequiredNode(own ?? { type: "object", properties: { argv: ARGV_PROPERTY } });
  if (own !== undefined) return own;
  if (execution === "sandbox")
    return { type: "object", properties: { argv: ARGV_PROPERTY, node: NODE_PROPERTY } };
  return { type: "object", properties: { argv: ARGV_PROPERTY } };
}

function withRequiredNode(schema: JsonSchema): JsonSchema {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return {
    ...schema,
    properties: { ...properties, node: NODE_PROPERTY },
    required: required.includes("node") ? required : [...required, "node"],
  };
}

/** The compact text form schemas are stored in: JSON without insignificant white space. */
export function compactSchema(schema: JsonSchema): string {
  return JSON.stringify(schema);
}
