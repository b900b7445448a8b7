import { join } from "node:path";
import { type CheckerRun, runChecker } from "./run-checker.js";
import {
  positiveInteger,
  type ScriptLanguage,
  type ScriptProblem,
  scriptProblem,
} from "./script-problems.js";

/** What every checker is given. */
export interface CheckerContext {
  /** The folder being checked. */
  readonly folder: string;
  /** The script, relative to `folder`. */
  readonly file: string;
  readonly timeoutMs: number;
  /** The environment for checker processes (a clean one: PATH, HOME, LANG only). */
  readonly env: NodeJS.ProcessEnv;
  /** Where `python3` and `bash` are looked up. */
  readonly commands: { readonly python: string; readonly bash: string; readonly node: string };
}

/**
 * Compiles Python source with the built-in `compile()`, which parses and never runs it, in
 * an isolated interpreter (`-I -S`: no site hooks, no environment) that writes no bytecode
 * (`-B`): nothing lands in the skill, not even `__pycache__`.
 */
const PYTHON_COMPILE = [
  "import sys, json",
  "source = open(sys.argv[1], 'rb').read()",
  "try:",
  "    compile(source, sys.argv[2], 'exec', dont_inherit=True)",
  "except SyntaxError as error:",
  "    print(json.dumps({'line': error.lineno, 'column': error.offset, 'message': error.msg}))",
  "    sys.exit(1)",
  "except (ValueError, RecursionError, MemoryError) as error:",
  "    print(json.dumps({'line': None, 'column': None, 'message': type(error).__name__ + ': ' + str(error)}))",
  "    sys.exit(1)",
].join("\n");

/** `.py` through Python's compiler. */
export async function checkPython(context: CheckerContext): Promise<ScriptProblem[]> {
  const run = await runChecker({
    command: context.commands.python,
    args: ["-I", "-S", "-B", "-c", PYTHON_COMPILE, join(context.folder, context.file), context.file],
    cwd: context.folder,
    timeoutMs: context.timeoutMs,
    env: context.env,
  });
  return judge(run, context, "python", "python3", (output) => {
    const firstLine = output.stdout.trim().split("\n")[0] ?? "";
    try {
      const parsed = JSON.parse(firstLine) as { line?: unknown; column?: unknown; message?: unknown };
      return {
        message: typeof parsed.message === "string" ? parsed.message : "syntax error",
        line: typeof parsed.line === "number" ? parsed.line : undefined,
        column: typeof parsed.column === "number" ? parsed.column : undefined,
      };
    } catch {
      return { message: lastLine(output.stderr) || "syntax error" };
    }
  });
}

/**
 * `.js .mjs .cjs` through `node --check`, reading the source on standard input with an
 * explicit `--input-type`, so no `package.json` above the skill decides how it parses and
 * nothing is loaded. A `.js` file is tried as CommonJS, then as an ES module; it fails only
 * when it parses as neither, and the message comes from the reading that fits it.
 */
export async function checkJavaScript(context: CheckerContext, source: Buffer): Promise<ScriptProblem[]> {
  const extension = context.file.slice(context.file.lastIndexOf(".")).toLowerCase();
  const check = (inputType: "commonjs" | "module"): Promise<CheckerRun> =>
    runChecker({
      command: context.commands.node,
      args: [`--input-type=${inputType}`, "--check"],
      cwd: context.folder,
      input: source,
      timeoutMs: context.timeoutMs,
      env: context.env,
    });
  let run: CheckerRun;
  if (extension === ".mjs") run = await check("module");
  else if (extension === ".cjs") run = await check("commonjs");
  else {
    run = await check("commonjs");
    if (run.kind === "exited" && run.exitCode !== 0) {
      const asModule = await check("module");
      if (asModule.kind !== "exited" || asModule.exitCode === 0 || looksLikeModuleSyntax(run.stderr))
        run = asModule;
    }
  }
  return judge(run, context, "javascript", "node", (output) => {
    const location = /^\[stdin\]:(\d+)/m.exec(output.stderr);
    const message =
      /^(\w*Error: .*)$/m.exec(output.stderr)?.[1] ?? (lastLine(output.stderr) || "syntax error");
    const caret = /^( *)\^/m.exec(output.stderr);
    return {
      message,
      line: positiveInteger(location?.[1]),
      column: caret?.[1] === undefined ? undefined : caret[1].length + 1,
    };
  });
}

/** `.sh .bash` through `bash -n` (parse only), with no startup files. */
export async function checkShell(context: CheckerContext): Promise<ScriptProblem[]> {
  const run = await runChecker({
    command: context.commands.bash,
    args: ["--noprofile", "--norc", "-n", join(context.folder, context.file)],
    cwd: context.folder,
    timeoutMs: context.timeoutMs,
    env: context.env,
  });
  return judge(run, context, "shell", "bash", (output) => {
    // bash prints "<file>: line N: <message>", then often the line itself in backquotes.
    const match = /: line (\d+): (?!`)(.*)$/m.exec(output.stderr);
    return {
      message: match?.[2] ?? (lastLine(output.stderr) || "syntax error"),
      line: positiveInteger(match?.[1]),
    };
  });
}

/** Turns a checker run into problems: exit 0 is clean, non-zero is a syntax error, the rest warnings. */
export function judge(
  run: CheckerRun,
  context: CheckerContext,
  language: ScriptLanguage,
  program: string,
  read: (output: { stdout: string; stderr: string }) => {
    message: string;
    line?: number | undefined;
    column?: number | undefined;
  },
): ScriptProblem[] {
  switch (run.kind) {
    case "missing":
      return [
        scriptProblem(context.file, language, "not_checked", `not checked: ${program} is not installed`),
      ];
    case "timeout":
      return [
        scriptProblem(
          context.file,
          language,
          "checker_timeout",
          `not checked: ${program} took longer than ${context.timeoutMs} ms`,
        ),
      ];
    case "crashed":
      return [
        scriptProblem(
          context.file,
          language,
          "checker_failed",
          `not checked: ${program} failed (${run.detail})`,
        ),
      ];
    case "exited": {
      if (run.exitCode === 0) return [];
      const found = read(run);
      return [
        scriptProblem(context.file, language, "syntax_error", found.message, {
          line: found.line,
          column: found.column,
        }),
      ];
    }
  }
}

function looksLikeModuleSyntax(stderr: string): boolean {
  return /import statement outside a module|Unexpected token 'export'|import\.meta|await is only valid|Cannot use 'import\.meta'/.test(
    stderr,
  );
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}
