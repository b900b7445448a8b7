import { type ScriptProblem, scriptProblem } from "./script-problems.js";

type TypeScriptModule = typeof import("typescript");

let loaded: Promise<TypeScriptModule | undefined> | undefined;

/**
 * Loads the TypeScript compiler on first use only (it is large), and tolerates its absence:
 * then `.ts` scripts are reported as not checked.
 */
function loadTypeScript(): Promise<TypeScriptModule | undefined> {
  loaded ??= import("typescript").then(
    (module) => ((module as { default?: TypeScriptModule }).default ?? module) as TypeScriptModule,
    () => undefined,
  );
  return loaded;
}

/**
 * `.ts .mts .cts .tsx` through the TypeScript parser: `transpileModule` with
 * `reportDiagnostics` reports syntax errors only (no type checking, no imports followed),
 * in process, without running anything.
 */
export async function checkTypeScript(file: string, source: Buffer): Promise<ScriptProblem[]> {
  const ts = await loadTypeScript();
  if (ts === undefined) {
    return [
      scriptProblem(
        file,
        "typescript",
        "not_checked",
        "not checked: the typescript package is not installed",
      ),
    ];
  }
  const output = ts.transpileModule(source.toString("utf8"), {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      jsx: ts.JsxEmit.Preserve,
      noEmitHelpers: true,
    },
  });
  const problems: ScriptProblem[] = [];
  for (const diagnostic of output.diagnostics ?? []) {
    if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const position =
      diagnostic.file !== undefined && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
        : undefined;
    problems.push(
      scriptProblem(file, "typescript", "syntax_error", `TS${diagnostic.code}: ${message}`, {
        line: position === undefined ? undefined : position.line + 1,
        column: position === undefined ? undefined : position.character + 1,
      }),
    );
  }
  return problems;
}
