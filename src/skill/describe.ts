import { DESCRIBE_MAX } from "../core/limits.js";

/**
 * A one-line description from a skill body: its first paragraph with white space
 * collapsed, cut to `max` characters.
 */
export function describe(text: string, max: number = DESCRIBE_MAX): string {
  const paragraph = text.trim().split(/\n\s*\n/)[0] ?? "";
  return paragraph.replace(/\s+/g, " ").trim().slice(0, max);
}
