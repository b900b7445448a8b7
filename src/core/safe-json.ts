/**
 * JSON parsing for untrusted text: keys that could pollute prototypes (`__proto__`,
 * `constructor`, `prototype`) are dropped, and objects come back without a prototype
 * chain that a later merge could reach through.
 */

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** A JSON value as parsed from untrusted text. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** True for keys that must never be copied from untrusted input. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** Parses JSON, dropping prototype-polluting keys. Throws SyntaxError for invalid JSON. */
export function parseJsonSafely(text: string): JsonValue {
  return JSON.parse(text, (key, value: unknown) => (isForbiddenKey(key) ? undefined : value)) as JsonValue;
}

/** A deep copy of a plain value with prototype-polluting keys removed. */
export function sanitizeJson(value: unknown): JsonValue {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(sanitizeJson);
  if (typeof value === "object") {
    const copy: { [key: string]: JsonValue } = {};
    for (const [key, inner] of Object.entries(value)) {
      if (!isForbiddenKey(key)) copy[key] = sanitizeJson(inner);
    }
    return copy;
  }
  return null;
}

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
