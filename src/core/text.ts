/**
 * Text helpers that count the way the Agent Skills specification does: in Unicode code
 * points, never UTF-16 units, so an emoji counts once.
 */

/** Length in Unicode code points. */
export function codePointLength(text: string): number {
  // Each surrogate pair is two UTF-16 units but one code point.
  let count = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        index += 1;
      }
    }
  }
  return count;
}

/**
 * The first `end` UTF-16 units of `text`, one fewer when the cut would fall between the
 * two halves of a surrogate pair: a clipped text never ends in half an emoji, which
 * would not survive encoding as UTF-8.
 */
export function sliceAtCodePoint(text: string, end: number): string {
  if (end <= 0) return "";
  if (end >= text.length) return text;
  const last = text.charCodeAt(end - 1);
  const cutsPair = last >= 0xd800 && last <= 0xdbff;
  return text.slice(0, cutsPair ? end - 1 : end);
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
  let head = sliceAtCodePoint(text, max - 1);
  const next = text.charAt(head.length);
  if (next !== "" && !/\s/.test(next)) {
    const space = head.lastIndexOf(" ");
    if (space >= (max - 1) / 2) head = head.slice(0, space);
  }
  return `${head.trimEnd()}…`;
}
