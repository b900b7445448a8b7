import { constants } from "node:fs";
import { access, lstat, readdir, readFile, stat } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { checkCSharp } from "./dotnet-check.js";
import { type CheckerContext, checkJavaScript, checkPython, checkShell } from "./language-checkers.js";
import {
  type ScriptCheckResult,
  type ScriptLanguage,
  type ScriptProblem,
  scriptProblem,
} from "./script-problems.js";
import { checkTypeScript } from "./typescript-check.js";

/** Options of {@link checkSkillScripts}; every field has a default. */
export interface ScriptCheckOptions {
  /** Time for one checker process; 20 s by default. */
  readonly timeoutMs?: number;
  /** Time for one `dotnet build`; 180 s by default (a first build restores an SDK's packs). */
  readonly dotnetTimeoutMs?: number;
  /** Where `python3`, `bash` and `dotnet` are looked up; the process's PATH by default. */
  readonly searchPath?: string;
  /** Checkers run at once; 2 by default. */
  readonly concurrency?: number;
  /** Larger scripts are not read and are reported as not checked; 1 MiB by default. */
  readonly maxScriptBytes?: number;
}

const LANGUAGES: Readonly<Record<string, ScriptLanguage>> = {
  ".py": "python",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescript",
  ".sh": "shell",
  ".bash": "shell",
  ".cs": "csharp",
};

/** The language the checker reads a file as, by its extension; `undefined` for files it does not check. */
export function scriptLanguage(path: string): ScriptLanguage | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? LANGUAGES[name.slice(dot).toLowerCase()] : undefined;
}

/** Entries walked below the folder before the walk stops; a skill holds at most a few hundred. */
const MAX_WALKED_ENTRIES = 10_000;
/** Variables a checker may see; everything else (NODE_OPTIONS, BASH_ENV, PYTHONSTARTUP, …) is dropped. */
const PASSED_ENVIRONMENT = [
  "HOME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TEMP",
  "TMP",
  "SystemRoot",
  "PYENV_ROOT",
  "PYENV_VERSION",
  "DOTNET_ROOT",
];

/**
 * Checks the syntax of every script in a skill folder (docs/import.md, "Script check") and returns
 * the problems with file and line. Errors mean a script does not parse and should block the save;
 * warnings mean a script could not be checked (its checker is missing, timed out or failed).
 *
 * `.py` through Python's `compile()`; `.js .mjs .cjs` through `node --check`; `.ts .mts .cts
 * .tsx` through the TypeScript parser; `.sh .bash` through `bash -n`; `.cs` through
 * `dotnet build` when `dotnet` is on the search path, otherwise a warning. Checkers are real
 * child processes with a timeout and a clean environment; no script is ever executed, and
 * nothing is written into the folder. Links are not followed.
 */
export async function checkSkillScripts(
  folder: string,
  options: ScriptCheckOptions = {},
): Promise<ScriptCheckResult> {
  const searchPath = options.searchPath ?? process.env.PATH ?? "";
  const env: NodeJS.ProcessEnv = { PATH: searchPath };
  for (const name of PASSED_ENVIRONMENT) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxScriptBytes = options.maxScriptBytes ?? 1024 * 1024;
  const scripts = await findScripts(folder);
  let dotnet: Promise<string | undefined> | undefined;
  const problems: ScriptProblem[] = [];
  await eachLimited(scripts, options.concurrency ?? 2, async ({ file, language }) => {
    const context: CheckerContext = {
      folder,
      file,
      timeoutMs,
      env,
      commands: { python: "python3", bash: "bash", node: process.execPath },
    };
    const size = (await lstat(join(folder, file))).size;
    if (size > maxScriptBytes) {
      problems.push(
        scriptProblem(file, language, "not_checked", `not checked: larger than ${maxScriptBytes} bytes`),
      );
      return;
    }
    switch (language) {
      case "python":
        problems.push(...(await checkPython(context)));
        return;
      case "javascript":
        problems.push(...(await checkJavaScript(context, await readFile(join(folder, file)))));
        return;
      case "typescript":
        problems.push(...(await checkTypeScript(file, await readFile(join(folder, file)))));
        return;
      case "shell":
        problems.push(...(await checkShell(context)));
        return;
      case "csharp": {
        dotnet ??= findExecutable("dotnet", searchPath);
        const command = await dotnet;
        if (command === undefined) {
          problems.push(
            scriptProblem(
              file,
              "csharp",
              "not_checked",
              "not checked: dotnet is not installed, so C# was saved unchecked",
            ),
          );
          return;
        }
        problems.push(...(await checkCSharp(context, command, options.dotnetTimeoutMs ?? 180_000)));
        return;
      }
    }
  });
  problems.sort(
    (left, right) =>
      (left.file < right.file ? -1 : left.file > right.file ? 1 : 0) || (left.line ?? 0) - (right.line ?? 0),
  );
  return {
    errors: problems.filter((problem) => problem.code === "syntax_error"),
    warnings: problems.filter((problem) => problem.code !== "syntax_error"),
  };
}

/** The scripts below `folder`, by relative path; links and special files are skipped, never followed. */
async function findScripts(folder: string): Promise<{ file: string; language: ScriptLanguage }[]> {
  const scripts: { file: string; language: ScriptLanguage }[] = [];
  const pending = [""];
  let walked = 0;
  for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
    const entries = await readdir(join(folder, relative), { withFileTypes: true });
    for (const entry of entries) {
      walked += 1;
      if (walked > MAX_WALKED_ENTRIES) return scripts;
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) {
        const language = scriptLanguage(entry.name);
        if (language !== undefined) scripts.push({ file: path, language });
      }
    }
  }
  return scripts;
}

/** The first executable named `name` on `searchPath`, or `undefined`. */
export async function findExecutable(name: string, searchPath: string): Promise<string | undefined> {
  const suffixes = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const folder of searchPath.split(delimiter)) {
    if (folder === "") continue;
    for (const suffix of suffixes) {
      const candidate = join(folder, name + suffix);
      try {
        await access(candidate, constants.X_OK);
        if ((await stat(candidate)).isDirectory()) continue;
        return candidate;
      } catch {
        // Not here; keep looking.
      }
    }
  }
  return undefined;
}

async function eachLimited<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}
