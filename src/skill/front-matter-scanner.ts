/**
 * The front matter nearly every SKILL.md has, read in one pass over the text with no
 * line array, regular expression or intermediate object: top-level `key: value` lines,
 * one nested mapping of scalars (`metadata:`), and top-level literal or folded block
 * scalars (`description: >-`) whose lines share one indentation.
 *
 * It is a faster twin of {@link parseSimpleFrontMatter} (simple-yaml.ts) and follows its
 * rules line for line: what it returns, that parser returns too, and a property test
 * holds it to that. It returns `undefined` for anything else (including some inputs that
 * parser would still take), and the caller falls back to that parser, then to `yaml`.
 */

const LINE_FEED = 0x0a;
const SPACE = 0x20;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const COLON = 0x3a;
const FOLDED = 0x3e;
const LITERAL = 0x7c;
const DASH = 0x2d;

// YAML allows an implicit key of at most 1024 characters before its ":"; longer is an error there.
const MAX_IMPLICIT_KEY_LENGTH = 1024;

/** ASCII characters allowed in a key after its first: letters, digits, `_`, `.`, `-`. */
const KEY_CHARACTER = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
/** ASCII characters a key may start with: letters and `_`. */
const KEY_START = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
/** ASCII characters a plain scalar must not start with: indicators, digits, signs, `.`, `~`. */
const NOT_PLAIN_START = asciiTable("-?:,[]{}#&*!|>'\"%@`0123456789+.~");

// Keys the core schema reads as null or booleans, or that could pollute prototypes; the
// same words as values would not be strings. Checked only at their lengths (4, 5, 9, 11).
const RESERVED_KEYS = new Set([
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
  "__proto__",
  "constructor",
  "prototype",
]);
const NON_STRING_VALUES = new Set([
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
]);

/**
 * Anything the line-based fast path would refuse wherever it stands (control characters
 * other than the line feed, line and paragraph separators, a BOM), or that needs a look
 * at its context (a backslash, which only double quotes refuse; ` #`, which starts a
 * comment outside quotes and block scalars): one test of the whole text instead of one
 * per character. A text that matches goes to that path, which reads it as it always did.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NEEDS_LINE_PARSER = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\\]| #/;

/** Strings by their length: at most a few candidates to compare a piece of text with. */
type KnownStrings = readonly (readonly string[] | undefined)[];

function byLength(strings: readonly string[]): KnownStrings {
  const table: string[][] = [];
  for (const text of strings) {
    const sameLength = table[text.length] ?? [];
    sameLength.push(text);
    table[text.length] = sameLength;
  }
  return table;
}

/** Keys most SKILL.md files use, returned as these very strings instead of a new slice each. */
const COMMON_KEYS = byLength([
  "name",
  "description",
  "license",
  "allowed-tools",
  "metadata",
  "compatibility",
]);
const COMMON_METADATA_KEYS = byLength([
  "author",
  "version",
  "skillgate.tier",
  "skillgate.execution",
  "skillgate.network",
  "skillgate.allowed-domains",
  "parameters_schema",
]);

/** The governance values metadata most often holds, returned as these strings instead of a slice each. */
const COMMON_METADATA_VALUES = byLength([
  "read",
  "change",
  "destructive",
  "sandbox",
  "local",
  "node",
  "queue",
  "none",
  "bridge",
]);
const NONE_KNOWN: KnownStrings = [];

/** Reads the common shape, or returns `undefined` when the text needs a fuller parser. */
export function scanFrontMatter(yaml: string): Record<string, unknown> | undefined {
  if (NEEDS_LINE_PARSER.test(yaml)) return undefined;
  const length = yaml.length;
  const result: Record<string, unknown> = {};
  let position = 0;
  while (position < length) {
    const end = lineEnd(yaml, position);
    if (end === position) {
      position += 1;
      continue;
    }
    const colon = colonOf(yaml, position, end);
    const key = colon === -1 ? undefined : keyAt(yaml, position, colon, COMMON_KEYS);
    if (key === undefined) return undefined;
    // Values are strings or mappings, never undefined; a key that names something on
    // Object.prototype (`toString`) reads as taken and goes to the line parser.
    if (isReserved(key) || result[key] !== undefined) return undefined;
    if (colon + 1 === end) {
      const mapping: Record<string, string> = {};
      position = readMapping(yaml, end, mapping);
      if (position === -1) return undefined;
      result[key] = mapping;
      continue;
    }
    if (yaml.charCodeAt(colon + 1) !== SPACE) return undefined;
    const start = skipSpaces(yaml, colon + 1, end);
    const stop = trimEnd(yaml, start, end);
    if (start === stop) return undefined;
    const header = blockHeader(yaml, start, stop);
    if (header !== 0) {
      const block = readBlock(yaml, end, header);
      if (block === undefined) return undefined;
      result[key] = block.value;
      position = block.next;
      continue;
    }
    const value = scalar(yaml, start, stop);
    if (value === undefined) return undefined;
    result[key] = value;
    position = end + 1;
  }
  return result;
}

/**
 * The entries of a nested mapping whose lines follow the header line ending at
 * `headerEnd`, all at the indentation of the first. Returns where the top level goes on,
 * or -1 when the block is not the simple kind.
 */
function readMapping(yaml: string, headerEnd: number, mapping: Record<string, string>): number {
  const length = yaml.length;
  // A header on the last line has no block at all.
  if (headerEnd === length) return -1;
  let position = headerEnd + 1;
  const indent = countSpaces(yaml, position, lineEnd(yaml, position));
  if (indent === 0) return -1;
  while (position <= length) {
    const end = lineEnd(yaml, position);
    if (end === position) return position;
    const spaces = countSpaces(yaml, position, end);
    if (spaces < indent) {
      // A line indented less than the block but not at the top level needs the full parser.
      return spaces > 0 ? -1 : position;
    }
    const keyStart = position + indent;
    const colon = colonOf(yaml, keyStart, end);
    if (colon === -1 || colon + 1 === end || yaml.charCodeAt(colon + 1) !== SPACE) return -1;
    const key = keyAt(yaml, keyStart, colon, COMMON_METADATA_KEYS);
    if (key === undefined) return -1;
    if (isReserved(key) || mapping[key] !== undefined) return -1;
    const start = skipSpaces(yaml, colon + 1, end);
    const stop = trimEnd(yaml, start, end);
    if (start === stop) return -1;
    const value = scalar(yaml, start, stop, COMMON_METADATA_VALUES);
    if (value === undefined) return -1;
    mapping[key] = value;
    position = end + 1;
  }
  return position;
}

/**
 * A literal (`|`) or folded (`>`) block scalar with clip or strip chomping, whose lines
 * follow the header line ending at `headerEnd`: every content line at one indentation,
 * no blank line inside, no trailing space. Blank lines may only end it.
 */
function readBlock(
  yaml: string,
  headerEnd: number,
  header: number,
): { value: string; next: number } | undefined {
  const length = yaml.length;
  if (headerEnd === length) return undefined;
  let position = headerEnd + 1;
  const firstEnd = lineEnd(yaml, position);
  const indent = countSpaces(yaml, position, firstEnd);
  if (indent === 0 || indent === firstEnd - position) return undefined;
  const separator = (header & LITERAL_HEADER) !== 0 ? "\n" : " ";
  let value: string | undefined;
  while (position <= length) {
    const end = lineEnd(yaml, position);
    if (end === position) {
      // Blank lines are fine only where the block ends: before the next key or the end.
      let next = position;
      while (next < length && yaml.charCodeAt(next) === LINE_FEED) next += 1;
      if (next < length && yaml.charCodeAt(next) === SPACE) return undefined;
      position = next;
      break;
    }
    const spaces = countSpaces(yaml, position, end);
    if (spaces === 0) break;
    // A line of spaces only is a blank line whose meaning depends on its length: full parser.
    if (spaces !== indent || spaces === end - position) return undefined;
    const start = position + indent;
    if (yaml.charCodeAt(end - 1) === SPACE) return undefined;
    const line = yaml.slice(start, end);
    value = value === undefined ? line : value + separator + line;
    position = end + 1;
  }
  if (value === undefined) return undefined;
  return { value: (header & STRIP_HEADER) !== 0 ? value : `${value}\n`, next: position };
}

const LITERAL_HEADER = 1;
const FOLDED_HEADER = 2;
const STRIP_HEADER = 4;

/** `|`, `|-`, `>` or `>-` as flags, or 0 for anything else. */
function blockHeader(yaml: string, start: number, stop: number): number {
  const first = yaml.charCodeAt(start);
  const kind = first === LITERAL ? LITERAL_HEADER : first === FOLDED ? FOLDED_HEADER : 0;
  if (kind === 0) return 0;
  if (stop - start === 1) return kind;
  if (stop - start === 2 && yaml.charCodeAt(start + 1) === DASH) return kind | STRIP_HEADER;
  return 0;
}

/**
 * A scalar in `[start, stop)`: a quoted one without inner quotes (the whole text has no
 * backslash), or a plain one that is surely a string (no indicator first, not a boolean
 * or null, no `: ` inside, no `:` at the end; the whole text has no ` #`). `undefined`
 * for anything else.
 */
function scalar(
  yaml: string,
  start: number,
  stop: number,
  known: KnownStrings = NONE_KNOWN,
): string | undefined {
  const first = yaml.charCodeAt(start);
  if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
    if (stop - start < 2 || yaml.charCodeAt(stop - 1) !== first) return undefined;
    // The closing quote must be the first one after the opening quote.
    if (yaml.indexOf(first === DOUBLE_QUOTE ? '"' : "'", start + 1) !== stop - 1) return undefined;
    return yaml.slice(start + 1, stop - 1);
  }
  if (first < 0x80 ? NOT_PLAIN_START[first] === 1 : isUnicodeSpace(first)) return undefined;
  if (yaml.charCodeAt(stop - 1) === COLON) return undefined;
  // A colon followed by a space inside the value (the last character is not a colon).
  for (
    let colon = yaml.indexOf(":", start);
    colon !== -1 && colon < stop;
    colon = yaml.indexOf(":", colon + 1)
  ) {
    if (yaml.charCodeAt(colon + 1) === SPACE) return undefined;
  }
  const value = knownText(yaml, start, stop, known) ?? yaml.slice(start, stop);
  if (stop - start <= 5 && NON_STRING_VALUES.has(value)) return undefined;
  return value;
}

/** Index of the first colon of the line in `[start, end)` after at least one character, or -1. */
function colonOf(yaml: string, start: number, end: number): number {
  const colon = yaml.indexOf(":", start);
  return colon > start && colon < end ? colon : -1;
}

/**
 * The key in `[start, colon)`: one of `known` when it is one, else a new slice when it is
 * a simple key (a letter or `_`, then letters, digits, `_`, `.` or `-`, at most 1024), else
 * `undefined`.
 */
function keyAt(yaml: string, start: number, colon: number, known: KnownStrings): string | undefined {
  const common = knownText(yaml, start, colon, known);
  if (common !== undefined) return common;
  if (colon - start > MAX_IMPLICIT_KEY_LENGTH) return undefined;
  const first = yaml.charCodeAt(start);
  if (first >= 0x80 || KEY_START[first] !== 1) return undefined;
  for (let index = start + 1; index < colon; index += 1) {
    const code = yaml.charCodeAt(index);
    if (code >= 0x80 || KEY_CHARACTER[code] !== 1) return undefined;
  }
  return yaml.slice(start, colon);
}

function lineEnd(yaml: string, from: number): number {
  const end = yaml.indexOf("\n", from);
  return end === -1 ? yaml.length : end;
}

function countSpaces(yaml: string, start: number, end: number): number {
  let index = start;
  while (index < end && yaml.charCodeAt(index) === SPACE) index += 1;
  return index - start;
}

function skipSpaces(yaml: string, start: number, end: number): number {
  return start + countSpaces(yaml, start, end);
}

function trimEnd(yaml: string, start: number, end: number): number {
  let stop = end;
  while (stop > start && yaml.charCodeAt(stop - 1) === SPACE) stop -= 1;
  return stop;
}

/** The one of `known` that `[start, end)` holds, if any. */
function knownText(yaml: string, start: number, end: number, known: KnownStrings): string | undefined {
  const candidates = known[end - start];
  if (candidates === undefined) return undefined;
  for (const candidate of candidates) if (sameCharacters(yaml, start, candidate)) return candidate;
  return undefined;
}

function sameCharacters(yaml: string, start: number, candidate: string): boolean {
  for (let index = 0; index < candidate.length; index += 1) {
    if (yaml.charCodeAt(start + index) !== candidate.charCodeAt(index)) return false;
  }
  return true;
}

function isReserved(key: string): boolean {
  const length = key.length;
  return (length === 4 || length === 5 || length === 9 || length === 11) && RESERVED_KEYS.has(key);
}

/** The characters outside ASCII that a regular expression's `\s` matches. */
function isUnicodeSpace(code: number): boolean {
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function asciiTable(characters: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let index = 0; index < characters.length; index += 1) table[characters.charCodeAt(index)] = 1;
  return table;
}
