import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { type CodeFamily, type CodeText, type StringLiteral, splitCode } from "./code-text.js";
import type { ScriptLanguage } from "./scripts.js";

/**
 * How a script reads its command line, found by reading its text (docs/running-scripts.md,
 * "How a script is called"). Nothing is run: `--help` never is. Each rule below names one
 * way of reading argv that is plain in the code; where none matches, or the file cannot be
 * read as text, nothing is said, because a guess would mislead a model more than silence.
 */
export type ArgvReader =
  | "argparse"
  | "optparse"
  | "getopt"
  | "sys.argv"
  | "click"
  | "typer"
  | "process.argv"
  | "util.parseArgs"
  | "getopts"
  | "positional parameters";

/** Where a usage line was found. */
export type UsageSource = "docstring" | "argparse usage" | "usage text" | "comment" | "argparse arguments";

/** What a script's text says about its command line. */
export interface ScriptCommandLine {
  /** The first rule that matched: how the script reads its argv. */
  readonly reads: ArgvReader;
  /** The script's own usage line, without its `Usage:` label, when one was found. */
  readonly usage?: string;
  readonly usageFrom?: UsageSource;
}

/** One way of reading argv, as data: a pattern on the code (comments and strings blanked). */
interface ArgvRule {
  readonly family: CodeFamily;
  readonly reads: ArgvReader;
  readonly pattern: RegExp;
  /** Another pattern the code must also hold (an import), when the first alone could be anything. */
  readonly alsoNeeds?: RegExp;
  /** Not trusted in a shell script that defines functions, where `$1` may be a function's own. */
  readonly notWithFunctions?: true;
}

/** The rules, in order; the first that matches names the reader. */
export const ARGV_RULES: readonly ArgvRule[] = [
  {
    family: "python",
    reads: "argparse",
    pattern: /\bArgumentParser\s*\(/,
    alsoNeeds: /^\s*(?:import\s+argparse\b|from\s+argparse\s+import\b)/m,
  },
  { family: "python", reads: "click", pattern: /@\s*click\s*\.\s*(?:command|group)\b/ },
  { family: "python", reads: "typer", pattern: /\btyper\s*\.\s*(?:run|Typer)\s*\(/ },
  {
    family: "python",
    reads: "optparse",
    pattern: /\bOptionParser\s*\(/,
    alsoNeeds: /^\s*(?:import\s+optparse\b|from\s+optparse\s+import\b)/m,
  },
  { family: "python", reads: "getopt", pattern: /\bgetopt\s*\.\s*(?:gnu_)?getopt\s*\(/ },
  { family: "python", reads: "sys.argv", pattern: /\bsys\s*\.\s*argv\b/ },
  { family: "python", reads: "sys.argv", pattern: /^\s*from\s+sys\s+import\s+[^\n]*\bargv\b/m },
  {
    family: "javascript",
    reads: "util.parseArgs",
    pattern: /\bparseArgs\s*\(/,
    alsoNeeds: /\{[^}]*\bparseArgs\b[^}]*\}\s*(?:from\b|=\s*require\b)/,
  },
  { family: "javascript", reads: "process.argv", pattern: /\bprocess\s*\.\s*argv\b/ },
  { family: "shell", reads: "getopts", pattern: /(?:^|[\s;&|(])getopts\s/m },
  // A call that hands the whole command line on (`main "$@"`) at the start of a line.
  { family: "shell", reads: "positional parameters", pattern: /^[ \t]*[A-Za-z_][\w-]*[ \t]+"\$@"[ \t]*$/m },
  {
    family: "shell",
    reads: "positional parameters",
    pattern: /\$(?:[1-9@*#]|\{(?:[1-9]\d*|[@*#])[}:#%/^,+=?-])/,
    notWithFunctions: true,
  },
];

/** The most of a script that is read; a longer one is not looked at (nothing is said). */
export const MAX_SCRIPT_READ_BYTES = 256 * 1024;
/** The longest usage line shown; a longer one is not shown. */
export const MAX_USAGE_CHARS = 300;

const FAMILIES: Readonly<Record<ScriptLanguage, CodeFamily | undefined>> = {
  python: "python",
  node: "javascript",
  typescript: "javascript",
  bash: "shell",
  csharp: undefined,
};

const SHELL_FUNCTION = /^[ \t]*(?:function[ \t]+[A-Za-z_][\w-]*|[A-Za-z_][\w-]*[ \t]*\(\s*\))/m;

/**
 * What the script at `file` (a skill's own file, never followed through a link) says about its
 * command line, or `undefined` when nothing reliable is found.
 */
export function readScriptCommandLine(file: string, language: ScriptLanguage): ScriptCommandLine | undefined {
  if (FAMILIES[language] === undefined) return undefined;
  const text = readScriptText(file);
  return text === undefined ? undefined : scriptCommandLine(text, language, basename(file));
}

/**
 * What `text`, a script of `language` named `name`, says about its command line: the first
 * {@link ARGV_RULES} rule that matches, and its usage line (a docstring's or a comment's
 * `Usage:` line, argparse's `usage=`, a `"Usage: …"` text it prints, or, for argparse, one
 * built from its `add_argument` calls). `undefined` when no rule matches.
 */
export function scriptCommandLine(
  text: string,
  language: ScriptLanguage,
  name: string,
): ScriptCommandLine | undefined {
  const family = FAMILIES[language];
  if (family === undefined) return undefined;
  const split = splitCode(text, family);
  const rule = ARGV_RULES.find(
    (candidate) =>
      candidate.family === family &&
      candidate.pattern.test(split.code) &&
      (candidate.alsoNeeds === undefined || candidate.alsoNeeds.test(split.code)) &&
      !(candidate.notWithFunctions === true && SHELL_FUNCTION.test(split.code)),
  );
  if (rule === undefined) return undefined;
  const usage = usageLine(split, family, name, rule.reads);
  return { reads: rule.reads, ...(usage !== undefined ? { usage: usage.line, usageFrom: usage.from } : {}) };
}

function usageLine(
  split: CodeText,
  family: CodeFamily,
  name: string,
  reads: ArgvReader,
): { line: string; from: UsageSource } | undefined {
  const candidates: Array<[UsageSource, string | undefined]> = [
    ["docstring", split.docstring === undefined ? undefined : labelled(split.docstring)],
    ["argparse usage", reads === "argparse" ? argparseUsage(split, name) : undefined],
    ["usage text", printedUsage(split.strings, family, name)],
    ["comment", labelled(split.comments.join("\n"))],
    ["argparse arguments", reads === "argparse" ? argparseArguments(split, name) : undefined],
  ];
  for (const [from, line] of candidates) {
    const shown = line === undefined ? undefined : shownLine(line);
    if (shown !== undefined) return { line: shown, from };
  }
  return undefined;
}

/** The text after a `Usage:` label: on its line, or the next non-empty line when the label stands alone. */
function labelled(text: string): string | undefined {
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    const match = /^\s*usage\s*:\s*(.*)$/i.exec(line);
    if (match === null) continue;
    const rest = (match[1] ?? "").trim();
    if (rest !== "") return rest;
    return lines
      .slice(index + 1)
      .find((next) => next.trim() !== "")
      ?.trim();
  }
  return undefined;
}

/** A line fit to show: one line, no control characters, not too long. */
function shownLine(line: string): string | undefined {
  const trimmed = line.trim();
  if (trimmed === "" || trimmed.length > MAX_USAGE_CHARS) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) return undefined;
  return trimmed;
}

/** argparse's `usage="…"` argument, `%(prog)s` as the script's name. */
function argparseUsage(split: CodeText, name: string): string | undefined {
  for (const literal of split.strings) {
    if (!/\busage\s*=\s*$/.test(split.code.slice(Math.max(0, literal.start - 40), literal.start))) continue;
    if (literal.kind !== "plain") return undefined;
    const text = literal.text.replaceAll("%(prog)s", name);
    return /%[(a-z]/i.test(text) ? undefined : text.split("\n")[0];
  }
  return undefined;
}

/** A `"Usage: …"` text the script prints, with the script's own name put in where the text names it. */
function printedUsage(
  strings: readonly StringLiteral[],
  family: CodeFamily,
  name: string,
): string | undefined {
  for (const literal of strings) {
    const rest = /^\s*usage\s*:\s*(.*)$/im.exec(literal.text)?.[1];
    if (rest === undefined) continue;
    const resolved = withScriptName(rest, literal.kind, family, name);
    if (resolved !== undefined && resolved.trim() !== "") return resolved;
  }
  return undefined;
}

// How each kind of literal names the script itself; anything else inside a placeholder is unknown.
const SELF_REFERENCES: Readonly<Record<LiteralKindWithPlaceholders, RegExp>> = {
  "python-format":
    /\{(?:sys\.argv\[0\]|os\.path\.basename\(\s*sys\.argv\[0\]\s*\)|__file__|Path\(__file__\)\.name)\}/g,
  "js-template":
    /\$\{(?:process\.argv\[1\]|(?:path\.)?basename\(\s*process\.argv\[1\]\s*\)|(?:path\.)?basename\(\s*__filename\s*\))\}/g,
  "shell-expanding": /\$0\b|\$\{0\}|\$\{0##\*\/\}|\$\(\s*basename\s+"?\$0"?\s*\)/g,
};

type LiteralKindWithPlaceholders = "python-format" | "js-template" | "shell-expanding";

/**
 * `text` with the script's references to itself replaced by `name`; `undefined` when another
 * placeholder is left (a value only known when it runs). A plain Python string is left as it
 * is unless it holds a `%` format, which is filled in later.
 */
function withScriptName(
  text: string,
  kind: StringLiteral["kind"],
  family: CodeFamily,
  name: string,
): string | undefined {
  if (kind === "plain") return family === "python" && /%[(a-z]/i.test(text) ? undefined : text;
  const replaced = text.replace(SELF_REFERENCES[kind], name);
  const leftOver =
    kind === "python-format" ? /\{[^{}]*\}/ : kind === "js-template" ? /\$\{/ : /\$[\w{(@*#?!-]/;
  return leftOver.test(replaced) ? undefined : replaced;
}

/**
 * A usage line built from argparse's `add_argument` calls, as argparse would print it in
 * short: `[options]` when there are any, then the positional arguments in order (`…` for a
 * repeated one, brackets for an optional one). Only when every call names its arguments with
 * plain strings and there are no sub-commands; otherwise nothing.
 */
function argparseArguments(split: CodeText, name: string): string | undefined {
  const { code } = split;
  if (/\badd_subparsers\s*\(/.test(code)) return undefined;
  const calls = [...code.matchAll(/\badd_argument\s*\(/g)];
  if (calls.length === 0) return undefined;
  const literals = new Map(split.strings.map((literal) => [literal.start, literal]));
  const positionals: string[] = [];
  let options = false;
  for (const call of calls) {
    const open = (call.index ?? 0) + call[0].length;
    const close = closingParenthesis(code, open - 1);
    if (close === undefined) return undefined;
    const first = literals.get(open + ((/^\s*/.exec(code.slice(open)) ?? [""])[0] ?? "").length);
    if (first === undefined || first.kind !== "plain") return undefined;
    if (first.text.startsWith("-")) {
      options = true;
      continue;
    }
    const nargs = /\bnargs\s*=\s*/.exec(code.slice(open, close));
    let repeat: string | undefined;
    if (nargs !== null) {
      const valueAt = open + nargs.index + nargs[0].length;
      const literal = literals.get(valueAt);
      if (literal !== undefined) repeat = literal.text;
      // A count (nargs=2) reads as the word; a name (nargs=COUNT) is known only when it runs.
      else if (!/^\d/.test(code.slice(valueAt))) return undefined;
    }
    positionals.push(positionalUsage(first.text, repeat));
  }
  return [name, ...(options ? ["[options]"] : []), ...positionals].join(" ");
}

/** One positional argument as argparse's usage shows it. */
function positionalUsage(word: string, repeat: string | undefined): string {
  if (repeat === "*") return `[${word} ...]`;
  if (repeat === "+") return `${word} [${word} ...]`;
  if (repeat === "?") return `[${word}]`;
  return word;
}

/** The offset of the `)` closing the `(` at `open` in code whose strings are blanked, or undefined. */
function closingParenthesis(code: string, open: number): number | undefined {
  let depth = 0;
  for (let index = open; index < code.length; index += 1) {
    const char = code[index];
    if (char === "(") depth += 1;
    else if (char === ")") {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return undefined;
}

/** The script's text when it is a regular file (not a link), at most {@link MAX_SCRIPT_READ_BYTES}, in UTF-8. */
function readScriptText(file: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size > MAX_SCRIPT_READ_BYTES) return undefined;
    const buffer = Buffer.alloc(stats.size);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(descriptor, buffer, read, buffer.length - read, read);
      if (count === 0) break;
      read += count;
    }
    const bytes = buffer.subarray(0, read);
    return isUtf8(bytes) ? bytes.toString("utf8") : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}
