/** The languages the script checker knows, by the checker that reads them. */
export type ScriptLanguage = "python" | "javascript" | "typescript" | "shell" | "csharp";

/** Why a problem was reported. */
export type ScriptProblemCode =
  /** The checker found the script does not parse. An error: it blocks the save. */
  | "syntax_error"
  /** No checker was available (no `python3`, `bash` or `dotnet`, or a file too large). A warning. */
  | "not_checked"
  /** The checker did not finish in time. A warning: the script is unverified, not known bad. */
  | "checker_timeout"
  /** The checker itself failed in a way that says nothing about the script. A warning. */
  | "checker_failed";

/** One problem in one script, located as precisely as its checker can. */
export interface ScriptProblem {
  /** The script's path relative to the checked folder, `/`-separated. */
  readonly file: string;
  /** 1-based line, when the checker names one. */
  readonly line?: number;
  /** 1-based column, when the checker names one. */
  readonly column?: number;
  readonly message: string;
  readonly language: ScriptLanguage;
  readonly code: ScriptProblemCode;
}

/** The outcome of checking a folder: errors block a save (the caller decides), warnings do not. */
export interface ScriptCheckResult {
  readonly errors: ScriptProblem[];
  readonly warnings: ScriptProblem[];
}

/** Builds a problem without undefined-valued optional keys (exactOptionalPropertyTypes). */
export function scriptProblem(
  file: string,
  language: ScriptLanguage,
  code: ScriptProblemCode,
  message: string,
  where: { line?: number | undefined; column?: number | undefined } = {},
): ScriptProblem {
  const problem: { -readonly [K in keyof ScriptProblem]: ScriptProblem[K] } = {
    file,
    language,
    code,
    message,
  };
  if (where.line !== undefined && Number.isSafeInteger(where.line) && where.line > 0)
    problem.line = where.line;
  if (where.column !== undefined && Number.isSafeInteger(where.column) && where.column > 0) {
    problem.column = where.column;
  }
  return problem;
}

/** Reads the first `N` of a `text:N` or `line N` style reference; `undefined` when there is none. */
export function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number.parseInt(text, 10);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
