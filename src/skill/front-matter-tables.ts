/**
 * What the front matter scanners share (front-matter-scanner.ts): the characters they
 * look for, the words YAML's core schema reads as something other than text, and the
 * keys and values most SKILL.md files hold, which they return as shared strings.
 */

export const LINE_FEED = 0x0a;
export const SPACE = 0x20;
export const DOUBLE_QUOTE = 0x22;
export const SINGLE_QUOTE = 0x27;
export const COLON = 0x3a;
export const FOLDED = 0x3e;
export const LITERAL = 0x7c;
export const DASH = 0x2d;

// YAML allows an implicit key of at most 1024 characters before its ":"; longer is an error there.
export const MAX_IMPLICIT_KEY_LENGTH = 1024;

/** ASCII characters allowed in a key after its first: letters, digits, `_`, `.`, `-`. */
export const KEY_CHARACTER = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
/** ASCII characters a key may start with: letters and `_`. */
export const KEY_START = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
/** ASCII characters a plain scalar must not start with: indicators, digits, signs, `.`, `~`. */
export const NOT_PLAIN_START = asciiTable("-?:,[]{}#&*!|>'\"%@`0123456789+.~");

// Words the core schema reads as null or booleans: as values they would not be strings.
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
// The same words as keys, and keys that could pollute prototypes. Checked only at their
// lengths (4, 5, 9, 11).
const RESERVED_KEYS = new Set([...NON_STRING_VALUES, "__proto__", "constructor", "prototype"]);

/** Strings by their length: at most a few candidates to compare a piece of text with. */
export type KnownStrings = readonly (readonly string[] | undefined)[];

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
export const COMMON_KEYS = byLength([
  "name",
  "description",
  "license",
  "allowed-tools",
  "metadata",
  "compatibility",
]);
export const COMMON_METADATA_KEYS = byLength([
  "author",
  "version",
  "skillgate.tier",
  "skillgate.execution",
  "skillgate.network",
  "skillgate.allowed-domains",
  "skillgate.workspace",
  "parameters_schema",
]);

/** The governance values metadata most often holds, returned as these strings instead of a slice each. */
export const COMMON_METADATA_VALUES = byLength([
  "read",
  "change",
  "destructive",
  "sandbox",
  "local",
  "node",
  "queue",
  "none",
  "bridge",
  "write",
]);
export const NONE_KNOWN: KnownStrings = [];

export const LITERAL_HEADER = 1;
export const FOLDED_HEADER = 2;
export const STRIP_HEADER = 4;

/** True for a plain value the core schema reads as null or a boolean. */
export function isNonStringValue(value: string): boolean {
  return value.length <= 5 && NON_STRING_VALUES.has(value);
}

/** True for a key neither scanner takes: null, booleans, prototype names. */
export function isReserved(key: string): boolean {
  const length = key.length;
  return (length === 4 || length === 5 || length === 9 || length === 11) && RESERVED_KEYS.has(key);
}

/** The characters outside ASCII that a regular expression's `\s` matches. */
export function isUnicodeSpace(code: number): boolean {
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
