import { accessSync, constants, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, delimiter, extname, isAbsolute, join } from "node:path";
import { stripTypes } from "../core/strip-types.js";
import type { ScriptLanguage } from "../skill/scripts.js";
import type { RunResult } from "./contract.js";
import {
  type ConfiguredInterpreters,
  type InterpreterProgram,
  type InterpreterResolution,
  resolveInterpreter,
} from "./interpreters/resolve-interpreter.js";
import { refusal } from "./refusal.js";

/**
 * The flags every `dotnet run` of a `.cs` file-based app gets (docs/running-scripts.md,
 * "Languages"): .NET 10 defaults to PublishAot, whose restore fetches the AOT compiler, and NuGet
 * auditing needs the network.
 */
export const DOTNET_RUN_FLAGS = ["-p:PublishAot=false", "-p:NuGetAudit=false"] as const;

/** The program that runs each language (`.cs` is looked up on PATH instead). */
const INTERPRETERS: Readonly<Record<Exclude<ScriptLanguage, "csharp">, InterpreterProgram>> = {
  python: "python3",
  node: "node",
  typescript: "node",
  bash: "bash",
};

/** A ready command: the program's absolute path and its arguments. */
export interface ScriptCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * Where interpreters and `dotnet` are looked for: a PATH-style list (default: this process's
 * PATH) and the owner's configured paths (`runners.interpreters`, read on every run so an
 * edit of config.yaml applies to the next one).
 */
export interface LanguageOptions {
  readonly searchPath?: string;
  readonly configuredInterpreters?: () => ConfiguredInterpreters;
  /** More folders an interpreter's mounts must never expose (skillgate's own and the home folder always are). */
  readonly protectedFolders?: readonly string[];
}

/**
 * The interpreter that runs `language` (see docs/running-scripts.md, "Interpreters"): found as
 * the user's shell finds it, or configured, with any shim resolved to the real program.
 */
export function languageInterpreter(
  language: Exclude<ScriptLanguage, "csharp">,
  options: LanguageOptions = {},
): InterpreterResolution {
  const configured = options.configuredInterpreters?.();
  return resolveInterpreter(INTERPRETERS[language], {
    ...(options.searchPath !== undefined ? { searchPath: options.searchPath } : {}),
    ...(configured !== undefined ? { configured } : {}),
    ...(options.protectedFolders !== undefined ? { protectedFolders: options.protectedFolders } : {}),
  });
}

/** `dotnet` on the search path, as an absolute path, or undefined. */
export function dotnetPath(options: LanguageOptions = {}): string | undefined {
  const searchPath = options.searchPath ?? process.env.PATH ?? "";
  for (const folder of searchPath.split(delimiter)) {
    if (folder === "" || !isAbsolute(folder)) continue;
    const candidate = join(folder, "dotnet");
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Whether `language` can run on this host: its interpreter is installed (and, for `.ts`,
 * the `typescript` package that strips the types). A refusal says what is missing.
 */
export function checkLanguage(
  language: ScriptLanguage,
  script: string,
  options: LanguageOptions = {},
): RunResult | undefined {
  if (language === "csharp") {
    if (dotnetPath(options) !== undefined) return undefined;
    return refusal(
      "language_unavailable",
      `${script} is a C# script and needs the .NET SDK (dotnet on PATH), which is not installed on this host, so it did not run. Tell the host's owner, or use a Python, JavaScript or shell script.`,
    );
  }
  const interpreter = languageInterpreter(language, options);
  if (!interpreter.ok)
    return refusal(
      "language_unavailable",
      `${script} needs ${INTERPRETERS[language]}, and ${interpreter.problem}, so it did not run; tell the host's owner (skillgate doctor shows the interpreters it found).`,
    );
  if (language === "typescript" && !typescriptInstalled())
    return refusal(
      "language_unavailable",
      `${script} is TypeScript and needs the typescript package to strip its types, which is not installed with skillgate on this host, so it did not run; tell the host's owner.`,
    );
  return undefined;
}

/**
 * The command that runs `scriptFile` (an absolute path inside a snapshot). A `.ts` script is
 * transpiled first (types stripped, `transpileModule`, no type check) into an `.mjs` file
 * inside `workFolder`, since Node 20 cannot strip types itself; it runs as one file, so its
 * relative imports resolve against the work folder, not the skill.
 */
export async function scriptCommand(
  language: ScriptLanguage,
  scriptFile: string,
  workFolder: string,
  options: LanguageOptions = {},
): Promise<{ ok: true; command: ScriptCommand } | { ok: false; refusal: RunResult }> {
  const unavailable = checkLanguage(language, basename(scriptFile), options);
  if (unavailable !== undefined) return { ok: false, refusal: unavailable };
  if (language === "csharp")
    return ok(dotnetPath(options) as string, ["run", scriptFile, ...DOTNET_RUN_FLAGS]);
  const resolved = languageInterpreter(language, options);
  if (!resolved.ok) return { ok: false, refusal: refusal("language_unavailable", resolved.problem) };
  const program = resolved.interpreter.executable;
  switch (language) {
    case "python":
      // -B: the snapshot is read-only, so do not even try to write bytecode next to it.
      return ok(program, ["-B", scriptFile]);
    case "node":
    case "bash":
      return ok(program, [scriptFile]);
    case "typescript":
      return ok(program, [await transpileTypeScript(scriptFile, workFolder)]);
  }
}

function ok(command: string, args: string[]): { ok: true; command: ScriptCommand } {
  return { ok: true, command: { command, args } };
}

const requireHere = createRequire(import.meta.url);

function typescriptInstalled(): boolean {
  try {
    requireHere.resolve("typescript");
    return true;
  } catch {
    return false;
  }
}

/** Strips a `.ts` file's types into `<work>/.skillgate-ts/<name>.mjs` and returns that path. */
export async function transpileTypeScript(scriptFile: string, workFolder: string): Promise<string> {
  const output = await stripTypes(readFileSync(scriptFile, "utf8"), basename(scriptFile));
  const folder = join(workFolder, ".skillgate-ts");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const target = join(folder, `${basename(scriptFile, extname(scriptFile))}.mjs`);
  writeFileSync(target, output, { mode: 0o400 });
  return target;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
