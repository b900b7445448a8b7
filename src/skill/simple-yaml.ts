/**
 * A fast path for the front matter nearly every SKILL.md has: `key: value` lines, one
 * level of nested mapping (`metadata:`), and top-level literal or folded block scalars
 * (`description: >-`) whose lines share one indentation. It accepts only a subset of YAML whose meaning
 * it is certain of and returns `undefined` for anything else, which then goes through the
 * full `yaml` parser. It must give exactly what `yaml` (core schema) gives for every
 * input it accepts; a property test and every fixture hold it to that.
 */

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// YAML allows an implicit key of at most 1024 characters before its ":"; longer is an error there.
const MAX_IMPLICIT_KEY_LENGTH = 1024;
// Keys the core schema would read as null or booleans, or that could pollute prototypes.
const NON_STRING_KEYS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
// A plain scalar must not start with an indicator, a digit or a sign (numbers), or a dot (.inf/.nan).
const PLAIN_FIRST = /^[^-?:,[\]{}#&*!|>'"%@`0-9+.~\s]/;
const NON_STRING_VALUES = NON_STRING_KEYS;
// Control characters, line and paragraph separators and a BOM change YAML's reading or are refused by it.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/** Parses the simple subset, or returns `undefined` when the text needs the full parser. */
export function parseSimpleFrontMatter(yaml: string): Record<string, unknown> | undefined {
  const result: Record<string, unknown> = {};
  const lines = yaml.split("\n");
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    index += 1;
    if (line === "") continue;
    const entry = splitEntry(line);
    if (entry === undefined || Object.hasOwn(result, entry.key)) return undefined;
    if (BLOCK_HEADER.test(entry.rest)) {
      const block = readBlockScalar(lines, index, entry.rest);
      if (block === undefined) return undefined;
      result[entry.key] = block.value;
      index = block.next;
      continue;
    }
    if (entry.rest !== "") {
      const value = readScalar(entry.rest);
      if (value === undefined) return undefined;
      result[entry.key] = value;
      continue;
    }
    const nested = readNestedMapping(lines, index);
    if (nested === undefined) return undefined;
    result[entry.key] = nested.mapping;
    index = nested.next;
  }
  return result;
}

// Literal (|) or folded (>) with clip or strip chomping; keep (+) and explicit indentation go to the full parser.
const BLOCK_HEADER = /^[|>]-?$/;

/**
 * A block scalar whose content lines all have the same indentation, with no blank line
 * inside and no trailing space: literal joins its lines with line breaks, folded with
 * spaces; clip adds one final line break, strip none. Blank lines after the last content
 * line are chomped away by both. Anything else needs the full parser.
 */
function readBlockScalar(
  lines: readonly string[],
  start: number,
  header: string,
): { value: string; next: number } | undefined {
  const first = lines[start];
  if (first === undefined) return undefined;
  const indent = leadingSpaces(first);
  if (indent === 0 || indent === first.length) return undefined;
  const content: string[] = [];
  let index = start;
  while (index < lines.length) {
    const line = lines[index] as string;
    if (line === "") {
      // Blank lines are fine only where the block ends: before the next key or the end.
      let next = index + 1;
      while (next < lines.length && lines[next] === "") next += 1;
      const following = lines[next];
      if (following !== undefined && leadingSpaces(following) > 0) return undefined;
      index = next;
      break;
    }
    const spaces = leadingSpaces(line);
    if (spaces === 0) break;
    // A line of spaces only is a blank line whose meaning depends on its length: full parser.
    if (spaces !== indent || spaces === line.length) return undefined;
    const text = line.slice(indent);
    if (UNSAFE_CHARACTERS.test(text) || text.endsWith(" ")) return undefined;
    content.push(text);
    index += 1;
  }
  const joined = content.join(header[0] === "|" ? "\n" : " ");
  return { value: header.length === 1 ? `${joined}\n` : joined, next: index };
}

function leadingSpaces(line: string): number {
  let count = 0;
  while (count < line.length && line.charCodeAt(count) === 32) count += 1;
  return count;
}

function readNestedMapping(
  lines: readonly string[],
  start: number,
): { mapping: Record<string, string>; next: number } | undefined {
  const first = lines[start];
  if (first === undefined) return undefined;
  const indent = (/^ */.exec(first)?.[0] ?? "").length;
  if (indent === 0) return undefined;
  const prefix = " ".repeat(indent);
  const mapping: Record<string, string> = {};
  let index = start;
  while (index < lines.length) {
    const line = lines[index] as string;
    if (line === "") break;
    if (!line.startsWith(prefix)) break;
    const entry = splitEntry(line.slice(indent));
    if (entry === undefined || entry.rest === "" || Object.hasOwn(mapping, entry.key)) return undefined;
    const value = readScalar(entry.rest);
    if (value === undefined) return undefined;
    mapping[entry.key] = value;
    index += 1;
  }
  // A blank line inside the block, or a line indented differently, needs the full parser.
  const following = lines[index];
  if (following !== undefined && following !== "" && following.startsWith(" ")) return undefined;
  return { mapping, next: index };
}

function splitEntry(line: string): { key: string; rest: string } | undefined {
  const colon = line.indexOf(":");
  if (colon <= 0) return undefined;
  const key = line.slice(0, colon);
  if (key.length > MAX_IMPLICIT_KEY_LENGTH) return undefined;
  if (!KEY.test(key) || NON_STRING_KEYS.has(key) || FORBIDDEN_KEYS.has(key)) return undefined;
  const after = line.slice(colon + 1);
  if (after === "") return { key, rest: "" };
  if (after[0] !== " ") return undefined;
  // Only spaces are trimmed: YAML keeps other white space (a no-break space) as content.
  const rest = trimSpaces(after);
  if (rest === "") return undefined;
  return { key, rest };
}

function readScalar(text: string): string | undefined {
  if (UNSAFE_CHARACTERS.test(text)) return undefined;
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    if (text.length < 2 || text[text.length - 1] !== quote) return undefined;
    const inner = text.slice(1, -1);
    if (inner.includes(quote) || (quote === '"' && inner.includes("\\"))) return undefined;
    // Leading or trailing spaces inside quotes are kept by YAML; we keep them too.
    return inner;
  }
  if (!PLAIN_FIRST.test(text) || NON_STRING_VALUES.has(text)) return undefined;
  if (text.includes(": ") || text.includes(" #") || text.endsWith(":")) return undefined;
  return text;
}

/** Trims spaces (only U+0020) from both ends. */
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 32) start += 1;
  while (end > start && text.charCodeAt(end - 1) === 32) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
