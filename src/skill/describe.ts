import { DESCRIBE_MAX } from "../core/limits.js";
import { sliceAtCodePoint } from "../core/text.js";

/**
 * A one-line description from a skill body: its first paragraph with white space
 * collapsed, cut to `max` characters (never inside a surrogate pair).
 */
export function describeSkillBody(text: string, max: number = DESCRIBE_MAX): string {
  const paragraph = text.trim().split(/\n\s*\n/)[0] ?? "";
  return sliceAtCodePoint(paragraph.replace(/\s+/g, " ").trim(), max);
}
