import {
  accessSync,
  constants,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, delimiter, extname, isAbsolute, join } from "node:path";
import { stripTypes } from "../core/strip-types.js";
import type { ScriptLanguage } from "../skill/scripts.js";
import type { RunResult } from "./contract.js";
import { refusal } from "./refusal.js";

/**
 * The flags every `dotnet run` of a `.cs` file-based app gets (docs/running-scripts.md,
 * "Languages"): .NET 10 defaults to PublishAot, whose restore fetches the AOT compiler, and NuGet
 * auditing needs the network.
 */
export const DOTNET_RUN_FLAGS = ["-p:PublishAot=false", "-p:NuGetAudit=false"] as const;

/**
 * Where interpreters are looked for, in order. Only real files under `/usr` count, so the
 * command that runs on the host is the one the sandbox can run (it sees `/usr` only), and
 * a version manager's shim earlier on PATH (pyenv, nvm) is never what runs a skill.
 */
export const INTERPRETER_FOLDERS = ["/usr/bin", "/usr/local/bin"] as const;

/** The program that runs each language (`.cs` is looked up on PATH instead). */
const INTERPRETERS: Readonly<Record<Exclude<ScriptLanguage, "csharp">, string>> = {
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

/** Where to look for `dotnet`: a PATH-style list (default: this process's PATH). */
export interface LanguageOptions {
  readonly searchPath?: string;
}

const found = new Map<string, string | undefined>();

/** The absolute path of a program under `/usr` (see {@link INTERPRETER_FOLDERS}), or undefined. */
export function interpreterPath(program: string): string | undefined {
  if (found.has(program)) return found.get(program);
  let path: string | undefined;
  for (const folder of INTERPRETER_FOLDERS) {
    const candidate = join(folder, program);
    if (isExecutable(candidate) && realpathOrUndefined(candidate)?.startsWith("/usr/")) {
      path = candidate;
      break;
    }
  }
  found.set(program, path);
  return path;
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
  const program = INTERPRETERS[language];
  if (interpreterPath(program) === undefined)
    return refusal(
      "language_unavailable",
      `${script} needs ${program}, which is not installed under /usr on this host, so it did not run; tell the host's owner.`,
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
  switch (language) {
    case "csharp":
      return ok(dotnetPath(options) as string, ["run", scriptFile, ...DOTNET_RUN_FLAGS]);
    case "python":
      // -B: the snapshot is read-only, so do not even try to write bytecode next to it.
      return ok(interpreterPath("python3") as string, ["-B", scriptFile]);
    case "node":
      return ok(interpreterPath("node") as string, [scriptFile]);
    case "bash":
      return ok(interpreterPath("bash") as string, [scriptFile]);
    case "typescript":
      return ok(interpreterPath("node") as string, [await transpileTypeScript(scriptFile, workFolder)]);
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

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
