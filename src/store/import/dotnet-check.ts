import { copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { removeTree } from "../../core/remove-tree.js";
import type { CheckerContext } from "./language-checkers.js";
import { runChecker } from "./run-checker.js";
import { positiveInteger, type ScriptProblem, scriptProblem } from "./script-problems.js";

/**
 * The flags added to every `dotnet` build of a file-based app (docs/import.md, "Script check"), the
 * same as every `dotnet run` gets: .NET 10 defaults to PublishAot, whose restore fetches the AOT
 * compiler, and NuGet auditing needs the network.
 */
export const DOTNET_BUILD_FLAGS = ["-p:PublishAot=false", "-p:NuGetAudit=false"] as const;

/**
 * `.cs` through `dotnet build` of the file as a file-based app. The file is copied alone
 * into a fresh temporary folder first, and `Directory.Build.*` imports are switched off, so
 * MSBuild files shipped inside the skill are never evaluated. Diagnostics are reported
 * against the skill's own path. Building compiles the script; it does not run it.
 */
export async function checkCSharp(
  context: CheckerContext,
  dotnet: string,
  timeoutMs: number,
): Promise<ScriptProblem[]> {
  const workspace = await mkdtemp(join(tmpdir(), "skillgate-cs-check-"));
  try {
    const name = basename(context.file);
    await copyFile(join(context.folder, context.file), join(workspace, name));
    const run = await runChecker({
      command: dotnet,
      args: [
        "build",
        name,
        ...DOTNET_BUILD_FLAGS,
        "-p:ImportDirectoryBuildProps=false",
        "-p:ImportDirectoryBuildTargets=false",
        "-nologo",
        "-clp:NoSummary",
      ],
      cwd: workspace,
      timeoutMs,
      env: {
        ...context.env,
        DOTNET_CLI_TELEMETRY_OPTOUT: "1",
        DOTNET_NOLOGO: "1",
        DOTNET_SKIP_FIRST_TIME_EXPERIENCE: "1",
      },
    });
    if (run.kind === "missing") {
      return [scriptProblem(context.file, "csharp", "not_checked", "not checked: dotnet is not installed")];
    }
    if (run.kind === "timeout") {
      return [
        scriptProblem(
          context.file,
          "csharp",
          "checker_timeout",
          `not checked: dotnet build took longer than ${timeoutMs} ms`,
        ),
      ];
    }
    if (run.kind === "crashed") {
      return [
        scriptProblem(context.file, "csharp", "checker_failed", `not checked: dotnet failed (${run.detail})`),
      ];
    }
    if (run.exitCode === 0) return [];
    return readBuildErrors(`${run.stdout}\n${run.stderr}`, name, context.file);
  } finally {
    removeTree(workspace);
  }
}

/**
 * Reads MSBuild's `file(line,column): error CODE: message [project]` lines for the script.
 * A failed build with no such line (a restore failure, a missing SDK) is a warning: it says
 * nothing about the script.
 */
export function readBuildErrors(output: string, name: string, file: string): ScriptProblem[] {
  const problems: ScriptProblem[] = [];
  const seen = new Set<string>();
  const pattern = /^(.*?)\((\d+),(\d+)\): error ([A-Z]+\d+): (.*?)(?: \[[^\]]*\])?\s*$/gm;
  for (const match of output.matchAll(pattern)) {
    const [, where = "", line, column, code = "", message = ""] = match;
    if (basename(where.trim()) !== name) continue;
    const key = `${line}:${column}:${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(
      scriptProblem(file, "csharp", "syntax_error", `${code}: ${message}`, {
        line: positiveInteger(line),
        column: positiveInteger(column),
      }),
    );
  }
  if (problems.length > 0) return problems;
  const last = output.trim().split("\n").at(-1)?.trim() ?? "";
  return [
    scriptProblem(
      file,
      "csharp",
      "checker_failed",
      `not checked: dotnet build failed without a diagnostic for the script (${last})`,
    ),
  ];
}
