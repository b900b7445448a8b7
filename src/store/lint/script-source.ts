/**
 * How review lint sees a script: its language (by extension, or by a `#!` line for a file
 * without one) and its lines with comment-only lines blanked, so a commented-out call is
 * not flagged. Line numbers stay those of the file.
 */

/** The languages review lint reads. */
export type LintLanguage = "python" | "javascript" | "shell";

/** One script to lint. */
export interface ScriptSource {
  /** Path inside the skill. */
  readonly file: string;
  readonly language: LintLanguage;
  /** The file's lines; comment-only lines are empty strings. */
  readonly lines: readonly string[];
  /** The whole text, for checks that look at the file as a whole. */
  readonly text: string;
}

const BY_EXTENSION: Readonly<Record<string, LintLanguage>> = {
  ".py": "python",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "javascript",
  ".mts": "javascript",
  ".cts": "javascript",
  ".sh": "shell",
  ".bash": "shell",
};

/** The lint language of a file, or `undefined` when lint does not read it. */
export function lintLanguage(path: string, text: string): LintLanguage | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot > 0) return BY_EXTENSION[name.slice(dot).toLowerCase()];
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
  if (shebang === null) return undefined;
  const program = (shebang[1]?.endsWith("/env") ? shebang[2] : shebang[1])?.split("/").pop() ?? "";
  if (/^python[0-9.]*$/.test(program)) return "python";
  if (program === "node" || program === "deno" || program === "bun") return "javascript";
  if (/^(?:ba|z|k|da)?sh$/.test(program)) return "shell";
  return undefined;
}

/** A script ready for the rules, or `undefined` for a file lint does not read. */
export function scriptSource(file: string, text: string): ScriptSource | undefined {
  const language = lintLanguage(file, text);
  if (language === undefined) return undefined;
  const comment = language === "javascript" ? /^\s*(?:\/\/|\/\*|\*)/ : /^\s*#/;
  const lines = text.split(/\r?\n/).map((line) => (comment.test(line) ? "" : line));
  return { file, language, lines, text: lines.join("\n") };
}
