import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { type InterpreterMount, prefixMounts } from "./prefix-mounts.js";

/** The programs skillgate runs scripts with (`.ts` runs with `node`; `.cs` with `dotnet`, looked up apart). */
export type InterpreterProgram = "python3" | "node" | "bash";

/** The key of each program in `runners.interpreters` (config.yaml). */
export const INTERPRETER_CONFIG_KEYS: Readonly<Record<InterpreterProgram, "python" | "node" | "bash">> = {
  python3: "python",
  node: "node",
  bash: "bash",
};

/** Absolute paths the owner configured (`runners.interpreters`), used instead of PATH. */
export interface ConfiguredInterpreters {
  readonly python?: string;
  readonly node?: string;
  readonly bash?: string;
}

/** Where an interpreter is looked for. */
export interface InterpreterLookup {
  /** A PATH-style list, searched as a shell would (default: this process's PATH). */
  readonly searchPath?: string;
  /** Configured paths, which win over the search path. */
  readonly configured?: ConfiguredInterpreters;
  /**
   * Folders a mount must never expose, besides skillgate's own config and data folders and
   * the home folder of this process (always protected): a prefix holding one is refused.
   */
  readonly protectedFolders?: readonly string[];
}

/**
 * An interpreter as the user's shell would run it, resolved to the real program behind any
 * shim (docs/running-scripts.md, "Interpreters").
 */
export interface ResolvedInterpreter {
  readonly program: InterpreterProgram;
  /** What PATH or the configuration named: possibly a shim (pyenv, asdf, rbenv-style script). */
  readonly found: string;
  readonly source: "path" | "config";
  /**
   * The program that runs scripts: Python's `sys.executable` (a venv's own `bin/python`, so
   * its `pyvenv.cfg` applies), Node's `process.execPath`, bash's real path.
   */
  readonly executable: string;
  /** Whether {@link found} is another file than {@link executable} (a shim or a link). */
  readonly viaShim: boolean;
  /** As the interpreter reports it (`3.11.7`, `v20.11.1`), when it was asked. */
  readonly version?: string;
  /** Python's `sys.prefix`; for node and bash the folder above the real program's `bin`. */
  readonly prefix: string;
  /** Python's `sys.base_prefix`, when it differs from the prefix (a venv). */
  readonly basePrefix?: string;
  /** What the sandbox binds read-only so the interpreter and its packages are there; none for `/usr`. */
  readonly mounts: readonly InterpreterMount[];
  /**
   * Why the sandbox cannot show this interpreter (a prefix too broad to bind, a program outside
   * its prefix); `mounts` is then empty. The local runner does not need mounts and runs it anyway.
   */
  readonly mountProblem?: string;
}

/** {@link resolveInterpreter}'s answer: the interpreter, or why there is none (a sentence, for a `HOST:` text). */
export type InterpreterResolution =
  | { readonly ok: true; readonly interpreter: ResolvedInterpreter }
  | { readonly ok: false; readonly problem: string };

/** How long the interpreter may take to say where it is (a shim may be slow to start). */
const ASK_TIMEOUT_MS = 15_000;

/** Asks Python where it really is: run with `-E`, as the sandbox's cleared environment would. */
const PYTHON_QUESTION = [
  "import json, site, sys",
  'print(json.dumps({"executable": sys.executable, "prefix": sys.prefix, "base_prefix": getattr(sys, "base_prefix", sys.prefix), "site": site.getsitepackages() if hasattr(site, "getsitepackages") else [], "version": "%d.%d.%d" % tuple(sys.version_info[:3])}))',
].join("\n");

/** Asks Node where it really is. */
const NODE_QUESTION =
  "process.stdout.write(JSON.stringify({ executable: process.execPath, version: process.version }))";

const resolved = new Map<string, ResolvedInterpreter>();

/**
 * Finds `program` the way the user's shell does: the configured path when there is one, else
 * the first executable file of that name on the search path. A shim is resolved by asking
 * the interpreter itself once (Python: `sys.executable`, `sys.prefix`, `sys.base_prefix`;
 * Node: `process.execPath`); the answer is cached by the found file's identity (path, device,
 * inode, size and change time, and the search path), so an upgraded shim or interpreter is
 * asked again, and so is one whose program is gone. A failure is not cached. Never throws.
 */
export function resolveInterpreter(
  program: InterpreterProgram,
  lookup: InterpreterLookup = {},
): InterpreterResolution {
  const configured = lookup.configured?.[INTERPRETER_CONFIG_KEYS[program]];
  const searchPath = lookup.searchPath ?? process.env.PATH ?? "";
  const found = configured ?? findOnSearchPath(program, searchPath);
  if (found === undefined)
    return {
      ok: false,
      problem: `${program} is not on this host's PATH (nor configured in runners.interpreters.${INTERPRETER_CONFIG_KEYS[program]})`,
    };
  if (configured !== undefined && !isExecutableFile(configured))
    return {
      ok: false,
      problem: `runners.interpreters.${INTERPRETER_CONFIG_KEYS[program]} names ${configured}, which is not an executable file`,
    };
  const key = identityKey(program, found, searchPath, lookup.protectedFolders);
  if (key === undefined) return { ok: false, problem: `${found} could not be read` };
  const cached = resolved.get(key);
  // A version the shim pointed at may have been removed since (`pyenv uninstall`): ask again.
  if (cached !== undefined && existsSync(cached.executable)) return { ok: true, interpreter: cached };
  const answer = askInterpreter(program, found, configured !== undefined ? "config" : "path", {
    searchPath,
    ...(lookup.protectedFolders !== undefined ? { protectedFolders: lookup.protectedFolders } : {}),
  });
  // Only answers are kept: a failure (a shim that timed out once) is tried again next time.
  if (answer.ok) resolved.set(key, answer.interpreter);
  else resolved.delete(key);
  return answer;
}

/**
 * The first executable file named `program` in a PATH-style list, as a shell finds it, except
 * that relative folders (and empty entries, which mean the working folder) are skipped: what
 * they name depends on where skillgate happens to run.
 */
export function findOnSearchPath(program: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(delimiter)) {
    if (folder === "" || !isAbsolute(folder)) continue;
    const candidate = join(folder, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function askInterpreter(
  program: InterpreterProgram,
  found: string,
  source: "path" | "config",
  context: { readonly searchPath: string; readonly protectedFolders?: readonly string[] },
): InterpreterResolution {
  let reported: Reported;
  if (program === "bash") reported = { executable: found };
  else {
    const answer = ask(program, found, context.searchPath);
    if (!answer.ok) return answer;
    reported = answer.reported;
  }
  if (!isAbsolute(reported.executable))
    return {
      ok: false,
      problem: `${found} did not say where its program is (it answered ${JSON.stringify(reported.executable)})`,
    };
  let realExecutable: string;
  try {
    realExecutable = realpathSync(reported.executable);
  } catch {
    return { ok: false, problem: `${found} runs ${reported.executable}, which does not exist` };
  }
  const prefix = reported.prefix ?? dirname(dirname(realExecutable));
  const basePrefix =
    reported.basePrefix !== undefined && reported.basePrefix !== prefix ? reported.basePrefix : undefined;
  const mounts = prefixMounts({
    interpreter: found,
    executable: reported.executable,
    realExecutable,
    prefixes: basePrefix !== undefined ? [prefix, basePrefix] : [prefix],
    packageFolders: reported.site ?? [],
    ...(context.protectedFolders !== undefined ? { protectedFolders: context.protectedFolders } : {}),
  });
  return {
    ok: true,
    interpreter: {
      program,
      found,
      source,
      executable: mounts.ok ? mounts.executable : reported.executable,
      viaShim: realpathOr(found) !== realExecutable,
      ...(reported.version !== undefined ? { version: reported.version } : {}),
      prefix,
      ...(basePrefix !== undefined ? { basePrefix } : {}),
      ...(mounts.ok ? { mounts: mounts.mounts } : { mounts: [], mountProblem: mounts.problem }),
    },
  };
}

type Reported = {
  executable: string;
  prefix?: string;
  basePrefix?: string;
  /** Python's `site.getsitepackages()`: where its packages are, which may be outside the prefix (Homebrew). */
  site?: string[];
  version?: string;
};

/** Runs the interpreter once with its question, in the user's environment (a shim needs it). */
function ask(
  program: "python3" | "node",
  found: string,
  searchPath: string,
): { ok: true; reported: Reported } | { ok: false; problem: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: searchPath };
  delete env.NODE_OPTIONS;
  let output: string;
  try {
    output = execFileSync(
      found,
      program === "python3" ? ["-E", "-c", PYTHON_QUESTION] : ["-e", NODE_QUESTION],
      {
        env,
        encoding: "utf8",
        timeout: ASK_TIMEOUT_MS,
        maxBuffer: 64 * 1024,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  } catch (error) {
    const stderr =
      String((error as { stderr?: unknown }).stderr ?? "")
        .trim()
        .split("\n")[0] ?? "";
    return {
      ok: false,
      problem: `${found} could not be asked where it is (${stderr !== "" ? stderr.slice(0, 200) : (error as Error).message.slice(0, 200)})`,
    };
  }
  try {
    const parsed = JSON.parse(output.trim().split("\n").pop() ?? "") as Record<string, unknown>;
    const text = (name: string): string | undefined =>
      typeof parsed[name] === "string" ? (parsed[name] as string) : undefined;
    const executable = text("executable") ?? "";
    const prefix = text("prefix");
    const basePrefix = text("base_prefix");
    const version = text("version");
    const site = Array.isArray(parsed.site)
      ? parsed.site.filter((folder): folder is string => typeof folder === "string")
      : [];
    return {
      ok: true,
      reported: {
        executable,
        site,
        ...(prefix !== undefined ? { prefix } : {}),
        ...(basePrefix !== undefined ? { basePrefix } : {}),
        ...(version !== undefined ? { version } : {}),
      },
    };
  } catch {
    return { ok: false, problem: `${found} gave an answer that is not the expected JSON` };
  }
}

function identityKey(
  program: InterpreterProgram,
  found: string,
  searchPath: string,
  protectedFolders: readonly string[] | undefined,
): string | undefined {
  try {
    const stats = statSync(found);
    // The search path is part of it: a shim resolves what it runs through PATH.
    return JSON.stringify([
      program,
      found,
      stats.dev,
      stats.ino,
      stats.size,
      stats.ctimeMs,
      searchPath,
      protectedFolders ?? null,
    ]);
  } catch {
    return undefined;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
