/**
 * A script's text split into code, comments and string literals, for reading it statically
 * (script-usage.ts). Not a parser: a small lexer per language family that knows where
 * comments and strings start and end, so a pattern looked for in `code` never matches inside
 * a string or a comment. Limits: JavaScript regular-expression literals are read as code (a
 * quote inside one can hide what follows), and a template literal's `${…}` is read as part
 * of the string; shell `$'…'` quoting is read as single-quoted text.
 */

/** How a string literal was written, which decides what its placeholders mean. */
export type LiteralKind = "plain" | "python-format" | "js-template" | "shell-expanding";

/** One string literal: its text between the quotes (escapes left as written) and where it starts. */
export interface StringLiteral {
  readonly text: string;
  readonly kind: LiteralKind;
  /** Offset of its prefix or opening quote in the script's text (and in `code`). */
  readonly start: number;
}

/** A script's text split for static reading. */
export interface CodeText {
  /** The text with every comment and every literal string's content replaced by spaces (newlines kept). */
  readonly code: string;
  readonly comments: readonly string[];
  readonly strings: readonly StringLiteral[];
  /** Python only: the module docstring, when the first statement is a string. */
  readonly docstring?: string;
}

/** The lexer families: Python, JavaScript (Node and TypeScript), POSIX shell (bash). */
export type CodeFamily = "python" | "javascript" | "shell";

/** Splits `text` into code, comments and strings, as {@link CodeFamily} `family` writes them. */
export function splitCode(text: string, family: CodeFamily): CodeText {
  const state = new Lexed(text);
  if (family === "python") lexPython(state);
  else if (family === "javascript") lexJavaScript(state);
  else lexShell(state);
  return state.result();
}

class Lexed {
  readonly text: string;
  readonly #blank: Array<[number, number]> = [];
  readonly comments: string[] = [];
  readonly strings: StringLiteral[] = [];
  docstring: string | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** Marks `[from, to)` as not code. */
  blank(from: number, to: number): void {
    if (to > from) this.#blank.push([from, to]);
  }

  result(): CodeText {
    const chars = [...this.text.split("")];
    for (const [from, to] of this.#blank)
      for (let index = from; index < to; index += 1) if (chars[index] !== "\n") chars[index] = " ";
    return {
      code: chars.join(""),
      comments: this.comments,
      strings: this.strings,
      ...(this.docstring !== undefined ? { docstring: this.docstring } : {}),
    };
  }
}

const IDENTIFIER = /[\w$]/;

/** The index of the line end at or after `from` (the text's length when there is none). */
function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end === -1 ? text.length : end;
}

/** The end of a quoted string opened at `open` with `quote` (exclusive of the quote), and where scanning goes on. */
function quotedEnd(
  text: string,
  open: number,
  quote: string,
  multiline: boolean,
): { end: number; next: number } {
  let index = open;
  while (index < text.length) {
    const char = text[index];
    if (char === "\\") {
      index += 2;
      continue;
    }
    if (text.startsWith(quote, index)) return { end: index, next: index + quote.length };
    if (char === "\n" && !multiline) return { end: index, next: index };
    index += 1;
  }
  return { end: text.length, next: text.length };
}

function lexPython(state: Lexed): void {
  const text = state.text;
  let sawStatement = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === "#") {
      const end = lineEnd(text, index);
      state.comments.push(text.slice(index + 1, end));
      state.blank(index, end);
      index = end;
      continue;
    }
    const prefix = /^[rRbBuUfF]{0,2}(?="""|'''|"|')/.exec(text.slice(index, index + 5));
    if (prefix !== null && (index === 0 || !IDENTIFIER.test(text[index - 1] as string))) {
      const quoteAt = index + prefix[0].length;
      const triple = text.startsWith('"""', quoteAt) || text.startsWith("'''", quoteAt);
      const quote = triple ? text.slice(quoteAt, quoteAt + 3) : (text[quoteAt] as string);
      const open = quoteAt + quote.length;
      const { end, next } = quotedEnd(text, open, quote, triple);
      const body = text.slice(open, end);
      state.strings.push({
        text: body,
        kind: /f/i.test(prefix[0]) ? "python-format" : "plain",
        start: index,
      });
      if (!sawStatement && state.docstring === undefined) state.docstring = body;
      sawStatement = true;
      state.blank(open, end);
      index = next;
      continue;
    }
    if (!/\s/.test(char)) sawStatement = true;
    index += 1;
  }
}

function lexJavaScript(state: Lexed): void {
  const text = state.text;
  let index = 0;
  if (text.startsWith("#!")) {
    index = lineEnd(text, 0);
    state.blank(0, index);
  }
  while (index < text.length) {
    const char = text[index] as string;
    if (text.startsWith("//", index)) {
      const end = lineEnd(text, index);
      state.comments.push(text.slice(index + 2, end));
      state.blank(index, end);
      index = end;
      continue;
    }
    if (text.startsWith("/*", index)) {
      const close = text.indexOf("*/", index + 2);
      const end = close === -1 ? text.length : close + 2;
      for (const line of text.slice(index + 2, close === -1 ? end : close).split("\n"))
        state.comments.push(line.replace(/^\s*\*/, ""));
      state.blank(index, end);
      index = end;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") {
      const { end, next } = quotedEnd(text, index + 1, char, char === "`");
      state.strings.push({
        text: text.slice(index + 1, end),
        kind: char === "`" ? "js-template" : "plain",
        start: index,
      });
      state.blank(index + 1, end);
      index = next;
      continue;
    }
    index += 1;
  }
}

function lexShell(state: Lexed): void {
  const text = state.text;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const previous = index === 0 ? "\n" : (text[index - 1] as string);
    if (char === "\\") {
      index += 2;
      continue;
    }
    if (char === "#" && /[\s;&|()]/.test(previous)) {
      const end = lineEnd(text, index);
      state.comments.push(text.slice(index + 1, end));
      state.blank(index, end);
      index = end;
      continue;
    }
    if (char === "'") {
      const close = text.indexOf("'", index + 1);
      const end = close === -1 ? text.length : close;
      state.strings.push({ text: text.slice(index + 1, end), kind: "plain", start: index });
      state.blank(index + 1, end);
      index = end + 1;
      continue;
    }
    if (char === '"') {
      // Double quotes expand: their text stays code, and is kept as a literal for usage lines.
      const { end, next } = quotedEnd(text, index + 1, '"', true);
      state.strings.push({ text: text.slice(index + 1, end), kind: "shell-expanding", start: index });
      index = next;
      continue;
    }
    const heredoc = /^<<-?[ \t]*(['"]?)([A-Za-z_][\w]*)\1/.exec(text.slice(index, index + 80));
    if (heredoc !== null) {
      const bodyStart = lineEnd(text, index) + 1;
      const delimiter = new RegExp(`^\\t*${heredoc[2]}[ \\t]*$`, "m");
      const rest = text.slice(bodyStart);
      const found = delimiter.exec(rest);
      const bodyEnd = found === null ? text.length : bodyStart + found.index;
      const quoted = heredoc[1] !== "";
      state.strings.push({
        text: text.slice(bodyStart, bodyEnd),
        kind: quoted ? "plain" : "shell-expanding",
        start: index,
      });
      // A quoted heredoc is literal text; an unquoted one expands like double quotes. The rest
      // of the heredoc's first line is ordinary code.
      const firstLineEnd = lineEnd(text, index);
      lexShellLine(state, index + heredoc[0].length, firstLineEnd);
      if (quoted) state.blank(bodyStart, bodyEnd);
      index = found === null ? text.length : bodyEnd + found[0].length;
      continue;
    }
    index += 1;
  }
}

/** The rest of a heredoc's first line: only its comment matters here. */
function lexShellLine(state: Lexed, from: number, to: number): void {
  const line = state.text.slice(from, to);
  const hash = /(^|[\s;&|])#/.exec(line);
  if (hash === null) return;
  const at = from + hash.index + (hash[1] ?? "").length;
  state.comments.push(state.text.slice(at + 1, to));
  state.blank(at, to);
}
