/**
 * PEP 723 inline script metadata (docs/running-scripts.md, "Packages"): the `# /// script`
 * block of a Python script, found by the specification's rule, and the two keys skillgate
 * uses from its TOML, `dependencies` and `requires-python`.
 *
 * The block rule is the specification's: a line `# /// TYPE` opens a block, every following
 * line must be `#` alone or `# ` and text, and the block ends at the last `# ///` line before
 * the first line that is not such a comment. Two `script` blocks are an error. The TOML is
 * read by a small reader of the subset these blocks hold: top-level `key = value` pairs whose
 * values are strings (basic or literal), arrays of strings (over several lines, trailing
 * comma and comments allowed), numbers and booleans, and `[tool…]` tables, which are skipped.
 * Anything else is reported, never guessed at.
 */

/** What one script's block declares, or why it could not be read. */
export type ScriptMetadata =
  | { readonly kind: "none" }
  | {
      readonly kind: "script";
      readonly dependencies: readonly string[];
      readonly requiresPython?: string;
      /** The 1-based line of the `# /// script` line. */
      readonly line: number;
    }
  | { readonly kind: "invalid"; readonly message: string; readonly line: number };

const OPEN = /^# \/\/\/ ([a-zA-Z0-9-]+)$/;
const CLOSE = "# ///";
const COMMENT = /^#( .*)?$/;

/** Reads the `script` block of a Python script's text (see the module comment for the rules). */
export function readScriptMetadata(text: string): ScriptMetadata {
  const lines = text.split(/\r?\n/);
  const blocks: { line: number; content: string[] }[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opened = OPEN.exec(lines[index] ?? "");
    if (opened === null) continue;
    let end = -1;
    let cursor = index + 1;
    for (; cursor < lines.length && COMMENT.test(lines[cursor] ?? ""); cursor += 1)
      if (lines[cursor] === CLOSE) end = cursor;
    if (opened[1] !== "script") {
      if (end > index) index = end;
      continue;
    }
    if (end < 0)
      return {
        kind: "invalid",
        message: "the `# /// script` block has no closing `# ///` line",
        line: index + 1,
      };
    const content = lines.slice(index + 1, end).map((line) => (line === "#" ? "" : line.slice(2)));
    blocks.push({ line: index + 1, content });
    index = end;
  }
  const first = blocks[0];
  if (first === undefined) return { kind: "none" };
  if (blocks.length > 1)
    return {
      kind: "invalid",
      message: "the script has more than one `# /// script` block",
      line: blocks[1]?.line ?? first.line,
    };
  const table = readTopLevel(first.content.join("\n"));
  if (!table.ok) return { kind: "invalid", message: table.message, line: first.line + table.line };
  const dependencies = table.values.get("dependencies");
  const requiresPython = table.values.get("requires-python");
  if (dependencies !== undefined && !isStringArray(dependencies))
    return { kind: "invalid", message: "`dependencies` must be an array of strings", line: first.line };
  if (requiresPython !== undefined && typeof requiresPython !== "string")
    return { kind: "invalid", message: "`requires-python` must be a string", line: first.line };
  return {
    kind: "script",
    dependencies: dependencies ?? [],
    ...(requiresPython !== undefined ? { requiresPython } : {}),
    line: first.line,
  };
}

type TomlValue = string | number | boolean | readonly string[];

function isStringArray(value: TomlValue): value is readonly string[] {
  return Array.isArray(value);
}

type TopLevel =
  | { readonly ok: true; readonly values: ReadonlyMap<string, TomlValue> }
  | { readonly ok: false; readonly message: string; readonly line: number };

/** The top-level pairs of the block's TOML; `[tool…]` tables and their contents are skipped. */
function readTopLevel(source: string): TopLevel {
  const reader = new Reader(source);
  const values = new Map<string, TomlValue>();
  let inTool = false;
  try {
    for (;;) {
      reader.skipBlank();
      if (reader.done()) break;
      if (reader.peek() === "[") {
        const header = reader.restOfLine().trim();
        if (!/^\[\s*tool(\.[^\]]*)?\s*\]\s*(#.*)?$/.test(header))
          throw new TomlProblem(`only [tool] tables may appear in the block, not ${header}`);
        inTool = true;
        continue;
      }
      if (inTool) {
        reader.skipToolLine();
        continue;
      }
      const key = reader.key();
      reader.expect("=");
      const value = reader.value();
      reader.endOfLine();
      if (values.has(key)) throw new TomlProblem(`the key ${key} appears twice`);
      values.set(key, value);
    }
  } catch (error) {
    if (error instanceof TomlProblem) return { ok: false, message: error.message, line: reader.line() };
    throw error;
  }
  return { ok: true, values };
}

class TomlProblem extends Error {}

/** A cursor over the block's TOML text. */
class Reader {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  done(): boolean {
    return this.#at >= this.#text.length;
  }

  peek(): string {
    return this.#text[this.#at] ?? "";
  }

  /** The 1-based line of the cursor within the block. */
  line(): number {
    return this.#text.slice(0, this.#at).split("\n").length;
  }

  /** Skips spaces, line breaks and comments. */
  skipBlank(): void {
    while (!this.done()) {
      const char = this.peek();
      if (char === " " || char === "\t" || char === "\n" || char === "\r") this.#at += 1;
      else if (char === "#") this.restOfLine();
      else break;
    }
  }

  restOfLine(): string {
    const end = this.#text.indexOf("\n", this.#at);
    const stop = end < 0 ? this.#text.length : end;
    const line = this.#text.slice(this.#at, stop);
    this.#at = stop;
    return line;
  }

  /** A line of a `[tool]` table: skipped, but a multi-line string or array is skipped whole. */
  skipToolLine(): void {
    const line = this.restOfLine();
    if (/^[^#]*=\s*("""|''')/.test(line) || /^[^#"']*=\s*\[[^\]]*$/.test(line)) {
      const closer = line.includes("[") ? "]" : (line.match(/"""|'''/)?.[0] ?? "]");
      const end = this.#text.indexOf(closer, this.#at);
      this.#at = end < 0 ? this.#text.length : end + closer.length;
    }
  }

  key(): string {
    const char = this.peek();
    if (char === '"' || char === "'") return this.string();
    const match = /^[A-Za-z0-9_-]+/.exec(this.#text.slice(this.#at));
    if (match === null) throw new TomlProblem("expected a key");
    this.#at += match[0].length;
    return match[0];
  }

  expect(char: string): void {
    this.skipSpaces();
    if (this.peek() !== char) throw new TomlProblem(`expected ${char}`);
    this.#at += 1;
    this.skipSpaces();
  }

  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.#at += 1;
  }

  endOfLine(): void {
    this.skipSpaces();
    if (this.peek() === "#") this.restOfLine();
    if (!this.done() && this.peek() !== "\n" && this.peek() !== "\r")
      throw new TomlProblem("unexpected text after a value");
  }

  value(): TomlValue {
    const char = this.peek();
    if (char === '"' || char === "'") return this.string();
    if (char === "[") return this.array();
    const match = /^(true|false|[+-]?\d[\d_]*(\.\d+)?)(?=\s|#|$)/.exec(this.#text.slice(this.#at));
    if (match === null)
      throw new TomlProblem(
        "a value skillgate cannot read (only strings, arrays of strings, numbers and booleans)",
      );
    this.#at += match[0].length;
    if (match[0] === "true" || match[0] === "false") return match[0] === "true";
    return Number(match[0].replaceAll("_", ""));
  }

  array(): string[] {
    this.#at += 1;
    const items: string[] = [];
    for (;;) {
      this.skipBlank();
      if (this.peek() === "]") {
        this.#at += 1;
        return items;
      }
      const char = this.peek();
      if (char !== '"' && char !== "'") throw new TomlProblem("an array in the block must hold strings only");
      items.push(this.string());
      this.skipBlank();
      if (this.peek() === ",") this.#at += 1;
      else if (this.peek() !== "]") throw new TomlProblem("expected , or ] in an array");
    }
  }

  /** A one-line basic (`"…"`, with escapes) or literal (`'…'`) string. */
  string(): string {
    const quote = this.peek();
    if (this.#text.startsWith(quote.repeat(3), this.#at))
      throw new TomlProblem("multi-line strings are not read in the block");
    this.#at += 1;
    let out = "";
    for (;;) {
      const char = this.peek();
      if (char === "" || char === "\n") throw new TomlProblem("a string is not closed on its line");
      this.#at += 1;
      if (char === quote) return out;
      if (quote === '"' && char === "\\") out += this.escape();
      else out += char;
    }
  }

  escape(): string {
    const char = this.peek();
    this.#at += 1;
    const simple: Readonly<Record<string, string>> = {
      '"': '"',
      "\\": "\\",
      n: "\n",
      t: "\t",
      r: "\r",
      b: "\b",
      f: "\f",
    };
    const known = simple[char];
    if (known !== undefined) return known;
    if (char === "u" || char === "U") {
      const length = char === "u" ? 4 : 8;
      const hex = this.#text.slice(this.#at, this.#at + length);
      if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== length) throw new TomlProblem("a bad \\u escape");
      this.#at += length;
      return String.fromCodePoint(Number.parseInt(hex, 16));
    }
    throw new TomlProblem(`an unknown escape \\${char}`);
  }
}
