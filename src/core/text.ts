/**
 * Text helpers that count the way the Agent Skills specification does: in Unicode code
 * points, never UTF-16 units, so an emoji counts once.
 */

/** Length in Unicode code points. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Collapses every run of whitespace into one space and trims. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Clips `text` to at most `max` characters (UTF-16 units, what a prompt budget counts),
 * ending with "…". The cut backs up to the last space only when it would split a word,
 * and never past the first half, so one long word still shows its start.
 */
export function clipAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return "…".slice(0, max);
  let head = text.slice(0, max - 1);
  const next = text.charAt(max - 1);
  if (next !== "" && !/\s/.test(next)) {
    const space = head.lastIndexOf(" ");
    if (space >= (max - 1) / 2) head = head.slice(0, space);
  }
  return `${head.trimEnd()}…`;
}
