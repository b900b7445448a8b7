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

import { MAX_DESCRIPTION_LENGTH, MAX_FRONT_MATTER_BYTES, MAX_NAME_LENGTH } from "../core/limits.js";
import { nameShape, type SkillFields, splitAllowedTools } from "./fields.js";
import {
  COLON,
  COMMON_KEYS,
  COMMON_METADATA_KEYS,
  COMMON_METADATA_VALUES,
  DASH,
  DOUBLE_QUOTE,
  FOLDED,
  FOLDED_HEADER,
  isNonStringValue,
  isReserved,
  isUnicodeSpace,
  KEY_CHARACTER,
  KEY_START,
  type KnownStrings,
  LINE_FEED,
  LITERAL,
  LITERAL_HEADER,
  MAX_IMPLICIT_KEY_LENGTH,
  NONE_KNOWN,
  NOT_PLAIN_START,
  SINGLE_QUOTE,
  SPACE,
  STRIP_HEADER,
} from "./front-matter-tables.js";

/**
 * Anything the line-based fast path would refuse wherever it stands (control characters
 * other than the line feed, line and paragraph separators, a BOM), or that needs a look
 * at its context (a backslash, which only double quotes refuse; ` #`, which starts a
 * comment outside quotes and block scalars): one test of the whole text instead of one
 * per character. A text that matches goes to that path, which reads it as it always did.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NEEDS_LINE_PARSER = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\\]| #/;

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
 * The fields of a clean skill, read in the same pass as its front matter, for discovery:
 * only the specification's keys (no compatibility), each once, a name that follows the
 * rules and is `folderName`, and a description of at most 1024 characters, so that
 * readSkillFields would find nothing. Nothing is built that the skill does not keep (no
 * mapping of the whole front matter, no list of problems). It gives exactly what
 * {@link scanFrontMatter} and readSkillFields give, and `undefined` for anything else,
 * which then goes that way; a property test holds it to that.
 */
export function scanCleanFields(yaml: string, folderName: string): SkillFields | undefined {
  // Longer texts may pass the front matter limit: the general way measures them.
  if (yaml.length * 3 > MAX_FRONT_MATTER_BYTES || NEEDS_LINE_PARSER.test(yaml)) return undefined;
  let name: string | undefined;
  let description: string | undefined;
  let license: string | undefined;
  let tools: string | undefined;
  let metadata: Record<string, string> | undefined;
  const length = yaml.length;
  let position = 0;
  while (position < length) {
    const end = lineEnd(yaml, position);
    if (end === position) {
      position += 1;
      continue;
    }
    const colon = colonOf(yaml, position, end);
    // Only the specification's keys, which arrive as the shared strings compared below.
    const key = colon === -1 ? undefined : knownText(yaml, position, colon, COMMON_KEYS);
    if (key === undefined) return undefined;
    if (colon + 1 === end) {
      if (key !== "metadata" || metadata !== undefined) return undefined;
      const mapping: Record<string, string> = {};
      position = readMapping(yaml, end, mapping);
      if (position === -1) return undefined;
      metadata = mapping;
      continue;
    }
    if (yaml.charCodeAt(colon + 1) !== SPACE) return undefined;
    const start = skipSpaces(yaml, colon + 1, end);
    const stop = trimEnd(yaml, start, end);
    if (start === stop) return undefined;
    let value: string | undefined;
    const header = blockHeader(yaml, start, stop);
    if (header !== 0) {
      const block = readBlock(yaml, end, header);
      if (block === undefined) return undefined;
      value = block.value;
      position = block.next;
    } else {
      value = scalar(yaml, start, stop);
      if (value === undefined) return undefined;
      position = end + 1;
    }
    if (key === "name" && name === undefined) name = value;
    else if (key === "description" && description === undefined) description = value;
    else if (key === "license" && license === undefined) license = value;
    else if (key === "allowed-tools" && tools === undefined) tools = value;
    // A repeated key, compatibility, or metadata given as text.
    else return undefined;
  }
  if (
    name !== folderName ||
    name.length > MAX_NAME_LENGTH ||
    nameShape(name) !== "specification" ||
    description === undefined ||
    description.length > MAX_DESCRIPTION_LENGTH ||
    description.trim() === ""
  ) {
    return undefined;
  }
  const allowedTools = tools === undefined ? [] : splitAllowedTools(tools);
  // The key order readSkillFields gives; the name is the folder's string, as it returns.
  return license !== undefined
    ? { name: folderName, description, metadata: metadata ?? {}, allowedTools, license }
    : { name: folderName, description, metadata: metadata ?? {}, allowedTools };
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
  return isNonStringValue(value) ? undefined : value;
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
