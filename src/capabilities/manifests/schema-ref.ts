import { readFileSync, statSync } from "node:fs";
import { MAX_SCHEMA_DEPTH } from "../../core/limits.js";
import { isPlainObject, type JsonValue, sanitizeJson } from "../../core/safe-json.js";
import { nestedDeeperThan } from "../../skill/parameters-schema.js";
import { jsonSchemaProblem } from "../../skill/schema-check.js";
import { type CapabilityProblem, problem } from "../problems.js";
import type { SchemaRef } from "../types.js";
import { type PathContext, resolveManifestPath } from "./manifest-paths.js";

/** The most bytes a schema file may have. */
export const MAX_SCHEMA_FILE_BYTES = 256 * 1024;

/** A JSON Schema document as plain data. */
export type JsonSchemaObject = { readonly [key: string]: JsonValue };

/** A schema field read: its reference and the schema itself, or the problems with it. */
export type SchemaRead =
  | { readonly ok: true; readonly ref: SchemaRef; readonly schema: JsonSchemaObject }
  | { readonly ok: false; readonly problems: readonly CapabilityProblem[] };

/**
 * Reads a manifest's schema field: a mapping is the schema inline, text is a path to a JSON
 * file (resolved and checked like every manifest path, at most {@link MAX_SCHEMA_FILE_BYTES}).
 * Either must be a valid JSON Schema 2020-12 document (the meta-schema check compiled ahead
 * of time: nothing is compiled here), nest at most MAX_SCHEMA_DEPTH levels, and for an
 * input schema describe an object (a payload is always an object). An absent field is the
 * caller's `capability_missing_schema`. Never throws.
 */
export function readSchemaField(
  raw: unknown,
  field: string,
  file: string,
  context: PathContext,
  options: { readonly describesObject: boolean },
): SchemaRead {
  const fail = (
    message: string,
    code: "invalid_schema" | "invalid_field" = "invalid_schema",
  ): SchemaRead => ({
    ok: false,
    problems: [problem(code, "error", `${field} ${message}`, { path: file, field })],
  });
  let value: unknown = raw;
  let ref: SchemaRef | undefined;
  if (typeof raw === "string") {
    const resolved = resolveManifestPath(raw, field, file, context);
    if (!resolved.ok) return { ok: false, problems: [resolved.problem] };
    try {
      const size = statSync(resolved.path).size;
      if (size > MAX_SCHEMA_FILE_BYTES)
        return fail(`is ${size} bytes; a schema file may have ${MAX_SCHEMA_FILE_BYTES}`);
      // Plain JSON.parse, then sanitizeJson: a reviver recurses and deep text would overflow the stack.
      value = JSON.parse(readFileSync(resolved.path, "utf8"));
    } catch (error) {
      return fail(`cannot be read as JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    ref = { kind: "file", path: resolved.path };
  } else if (!isPlainObject(raw)) {
    return fail("must be a JSON Schema mapping or a path to a JSON file", "invalid_field");
  }
  if (!isPlainObject(value)) return fail("must be a JSON Schema object");
  if (nestedDeeperThan(value, MAX_SCHEMA_DEPTH)) return fail(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  const schema = sanitizeJson(value) as JsonSchemaObject;
  if (options.describesObject && schema.type !== "object") return fail('must have "type": "object"');
  let why: string | undefined;
  try {
    why = jsonSchemaProblem(schema);
  } catch (error) {
    why = `cannot be checked: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (why !== undefined) return fail(`is not a valid JSON Schema 2020-12 document: ${why}`);
  return { ok: true, ref: ref ?? { kind: "inline", schema }, schema };
}

/** A manifest's input and output schemas as read; a side left out had a problem. */
export type SchemaPair = Partial<Record<"input" | "output", { ref: SchemaRef; schema: JsonSchemaObject }>>;

/**
 * Reads both schema fields of a manifest (`<prefix>input_schema`, `<prefix>output_schema`)
 * from `container`: each must be there (`capability_missing_schema`, seed 004) and pass
 * {@link readSchemaField}. Problems go to `report`; never throws.
 */
export function readSchemaPair(
  container: { readonly [key: string]: unknown },
  prefix: string,
  file: string,
  context: PathContext,
  report: (...problems: CapabilityProblem[]) => void,
): SchemaPair {
  const schemas: SchemaPair = {};
  for (const side of ["input", "output"] as const) {
    const field = `${prefix}${side}_schema`;
    const raw = container[`${side}_schema`];
    if (raw === undefined || raw === null) {
      report(
        problem(
          "capability_missing_schema",
          "error",
          `${field} is required: a capability's ${side} must be checked`,
          {
            path: file,
            field,
          },
        ),
      );
      continue;
    }
    const read = readSchemaField(raw, field, file, context, { describesObject: side === "input" });
    if (read.ok) schemas[side] = { ref: read.ref, schema: read.schema };
    else report(...read.problems);
  }
  return schemas;
}
