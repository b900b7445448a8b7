/**
 * A list answer: the server answers either a bare array or an object holding it under `key`
 * (with a count or a next-page mark beside it). Anything else is an empty list.
 */
export function listIn<Item>(answer: unknown, key: string): Item[] {
  if (Array.isArray(answer)) return answer as Item[];
  if (typeof answer === "object" && answer !== null) {
    const value = (answer as Record<string, unknown>)[key];
    if (Array.isArray(value)) return value as Item[];
  }
  return [];
}
