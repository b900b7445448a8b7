import { isPlainObject } from "../core/safe-json.js";

/** A nested mapping of a section; anything else is a problem and reads as empty. */
export function mapping(
  value: Record<string, unknown>,
  key: string,
  parent: string,
  problems: string[],
): Record<string, unknown> {
  const inner = value[key];
  if (inner === undefined || inner === null) return {};
  if (isPlainObject(inner)) return inner;
  problems.push(`"${parent}.${key}" must be a mapping`);
  return {};
}

/** Adds a problem for each key of `value` not in `known`. */
export function unknownKeys(
  value: Record<string, unknown>,
  where: string,
  known: readonly string[],
  problems: string[],
): void {
  for (const key of Object.keys(value))
    if (!known.includes(key)) problems.push(`unknown key "${where}.${key}"`);
}

/** A whole number within `bounds`, or `fallback` with a problem. */
export function bounded(
  value: unknown,
  where: string,
  bounds: { readonly min: number; readonly max: number },
  fallback: number,
  problems: string[],
): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "number" && Number.isInteger(value) && value >= bounds.min && value <= bounds.max)
    return value;
  problems.push(`"${where}" must be a whole number from ${bounds.min} to ${bounds.max}`);
  return fallback;
}
