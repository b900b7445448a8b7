import { isForbiddenKey } from "../../core/safe-json.js";
import { StoreError } from "../errors.js";
import { findDuplicateKey } from "./json-duplicate-keys.js";

/**
 * Reads a tool's arguments once, strictly: an object, or JSON text holding one; names are
 * case-sensitive; no field may repeat (in JSON text, where `JSON.parse` would silently keep
 * the last) or be unknown; every value must have its type. Every problem is one typed
 * error whose message starts with `HOST:` and names the field, so a model can tell it from
 * a script's own output and fix exactly that field.
 */

/** The codes of the tools read this way. */
export type ArgumentsErrorCode = "invalid_edit_arguments" | "invalid_draft_arguments";

/** A tool's arguments were not what the tool takes. Nothing was read further, nothing written. */
export class InvalidToolArgumentsError extends StoreError<{ tool: string; field?: string }> {
  constructor(code: ArgumentsErrorCode, tool: string, field: string | undefined, message: string) {
    super(code, `HOST: ${message}`, { tool, ...(field !== undefined ? { field } : {}) });
  }
}

/** The type one field must have. */
export type FieldType =
  /** Text. */
  | "string"
  /** true or false. */
  | "boolean"
  /** A list of texts. */
  | "string-list"
  /** An object mapping texts to texts (file path → content). */
  | "text-map"
  /** An object, or JSON text holding one (a JSON Schema). */
  | "object-or-json";

/** What a tool takes: each field's type and whether it must be there. */
export type ArgumentSpec = Readonly<
  Record<string, { readonly type: FieldType; readonly required?: boolean }>
>;

/** A reader bound to one tool: its name (for messages) and the error code it refuses with. */
export interface ArgumentsReader {
  readonly tool: string;
  readonly code: ArgumentsErrorCode;
  /** Largest JSON text accepted, in UTF-16 units (a bound on work, not on content). */
  readonly maxTextLength: number;
}

/** Throws the reader's error for `field`. */
export function refuse(reader: ArgumentsReader, field: string | undefined, message: string): never {
  throw new InvalidToolArgumentsError(reader.code, reader.tool, field, message);
}

/**
 * Reads `raw` against `spec` and returns the fields it holds, each checked for its type.
 * Nested objects are plain data (no accessors, no prototype other than Object's); no key
 * anywhere may be `__proto__`, `constructor` or `prototype`.
 */
export function readStrictArguments(
  raw: unknown,
  spec: ArgumentSpec,
  reader: ArgumentsReader,
): Record<string, unknown> {
  const value = typeof raw === "string" ? parseText(raw, reader, undefined) : raw;
  if (!isDataObject(value)) {
    refuse(reader, undefined, `${reader.tool} arguments must be a JSON object, not ${describe(value)}.`);
  }
  checkKeysDeep(value, reader);
  const names = Object.keys(spec);
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = spec[key];
    if (field === undefined || !Object.hasOwn(spec, key)) {
      const near = names.find((name) => name.toLowerCase() === key.toLowerCase());
      refuse(
        reader,
        key,
        near !== undefined
          ? `${reader.tool} argument "${key}" is unknown; names are case-sensitive: did you mean "${near}"?`
          : `${reader.tool} argument "${key}" is unknown; the fields are ${names.join(", ")}.`,
      );
    }
    Object.defineProperty(result, key, {
      value: readField(value[key], key, field.type, reader),
      enumerable: true,
    });
  }
  for (const name of names) {
    if (spec[name]?.required === true && !Object.hasOwn(result, name))
      refuse(reader, name, `${reader.tool} needs the argument "${name}".`);
  }
  return result;
}

function readField(value: unknown, field: string, type: FieldType, reader: ArgumentsReader): unknown {
  const wrong = (expected: string): never =>
    refuse(reader, field, `${reader.tool} argument "${field}" must be ${expected}, not ${describe(value)}.`);
  switch (type) {
    case "string":
      return typeof value === "string" ? value : wrong("text");
    case "boolean":
      return typeof value === "boolean" ? value : wrong("true or false");
    case "string-list": {
      if (!Array.isArray(value)) return wrong("a list of texts");
      const seen = new Set<string>();
      for (const item of value) {
        if (typeof item !== "string") return wrong("a list of texts");
        if (seen.has(item))
          refuse(reader, field, `${reader.tool} argument "${field}" lists "${item}" twice.`);
        seen.add(item);
      }
      return [...value] as string[];
    }
    case "text-map": {
      if (!isDataObject(value)) return wrong("an object mapping paths to text");
      const copy: Record<string, string> = {};
      for (const [key, inner] of Object.entries(value)) {
        if (typeof inner !== "string")
          refuse(
            reader,
            field,
            `${reader.tool} argument ${field}["${key}"] must be text, not ${describe(inner)}.`,
          );
        Object.defineProperty(copy, key, { value: inner, enumerable: true });
      }
      return copy;
    }
    case "object-or-json": {
      if (typeof value === "string") {
        const parsed = parseText(value, reader, field);
        if (!isDataObject(parsed)) return wrong("a JSON object (or JSON text holding one)");
        checkKeysDeep(parsed, reader, field);
        return parsed;
      }
      return isDataObject(value) ? value : wrong("a JSON object (or JSON text holding one)");
    }
  }
}

/** Parses JSON text once; refuses text that is too long, not JSON, or repeats a key anywhere. */
function parseText(text: string, reader: ArgumentsReader, field: string | undefined): unknown {
  const what = field === undefined ? `${reader.tool} arguments` : `${reader.tool} argument "${field}"`;
  if (text.length > reader.maxTextLength)
    refuse(reader, field, `${what} are longer than ${reader.maxTextLength} characters.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse(reader, field, `${what} was text that isn't valid JSON; send a JSON object.`);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    const inside = [...(field !== undefined ? [field] : []), ...duplicate.path];
    const where =
      inside.length === 0 ? "" : ` inside ${inside.map((key) => JSON.stringify(key)).join(" → ")}`;
    refuse(
      reader,
      inside[0] ?? duplicate.key,
      `${what} ${field === undefined ? "repeat" : "repeats"} the key "${duplicate.key}"${where}; send each key once.`,
    );
  }
  return value;
}

/**
 * Walks a value iteratively: every object must be plain data and no key may be one that
 * could reach a prototype. The first offending key is refused, naming the field it is in.
 */
function checkKeysDeep(root: object, reader: ArgumentsReader, field?: string): void {
  const pending: { value: unknown; field: string | undefined }[] = [{ value: root, field }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const value = item.value;
    if (typeof value !== "object" || value === null) continue;
    if (!Array.isArray(value) && !isDataObject(value))
      refuse(reader, item.field, `${reader.tool} arguments may hold only plain JSON values.`);
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === "symbol" || (Array.isArray(value) && key === "length")) continue;
      if (isForbiddenKey(key))
        refuse(reader, item.field ?? key, `${reader.tool} arguments may not use the key "${key}".`);
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined || !("value" in descriptor))
        refuse(reader, item.field ?? key, `${reader.tool} arguments may hold only plain JSON values.`);
      pending.push({ value: descriptor.value, field: item.field ?? key });
    }
  }
}

/** A plain object: Object's prototype or none, no symbol keys, no accessors. */
function isDataObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  return Object.values(Object.getOwnPropertyDescriptors(value)).every((descriptor) => "value" in descriptor);
}

/** How a value is named in a message: its JSON type. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "string") return "text";
  if (value === undefined) return "nothing";
  return typeof value === "object" ? "an object" : typeof value;
}
