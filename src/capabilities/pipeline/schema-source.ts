import { readFileSync, statSync } from "node:fs";
import { isPlainObject, parseJsonSafely } from "../../core/safe-json.js";
import type { JsonSchema } from "../../skill/parameters-schema.js";
import type { SchemaRef } from "../types.js";

/**
 * The schema a {@link SchemaRef} names: inline as given, or read from its (already
 * canonicalised) file. A file is read once per modification time and size, so its validator
 * (compiled once per schema object, skill/schema-validate.ts) is reused until the file changes.
 */

/** The largest schema file read: 1 MiB. */
export const MAX_SCHEMA_FILE_BYTES = 1024 * 1024;

const fromFiles = new Map<string, { stamp: string; schema: JsonSchema | undefined }>();

/** The schema, or `undefined` when it cannot be read as a JSON object (the caller refuses the call). */
export function schemaOf(ref: SchemaRef | undefined): JsonSchema | undefined {
  if (ref === undefined) return undefined;
  if (ref.kind === "inline") return ref.schema as JsonSchema;
  let stamp: string;
  try {
    const stats = statSync(ref.path);
    if (!stats.isFile() || stats.size > MAX_SCHEMA_FILE_BYTES) return undefined;
    stamp = `${stats.mtimeMs}:${stats.size}`;
  } catch {
    return undefined;
  }
  const known = fromFiles.get(ref.path);
  if (known?.stamp === stamp) return known.schema;
  let schema: JsonSchema | undefined;
  try {
    const parsed = parseJsonSafely(readFileSync(ref.path, "utf8"));
    schema = isPlainObject(parsed) || typeof parsed === "boolean" ? (parsed as JsonSchema) : undefined;
  } catch {
    schema = undefined;
  }
  fromFiles.set(ref.path, { stamp, schema });
  return schema;
}
