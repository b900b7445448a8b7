import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOTNET_RUN_FLAGS, dotnetPath, languageInterpreter } from "../../src/runners/languages.js";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { hashOf, requestFor, runnerTree, writeSkillFolder } from "./helpers.js";

/** Each script echoes its stdin and SKILLGATE_SKILL_ARGS, so both ways in are checked at once. */
const SCRIPTS: Record<string, string> = {
  "scripts/echo.py":
    "import os, sys\nprint('python', sys.stdin.read(), os.environ['SKILLGATE_SKILL_ARGS'], os.environ['SKILLGATE_SKILL_NAME'])\n",
  "scripts/echo.js":
    "const fs = require('node:fs');\nconsole.log('js', fs.readFileSync(0, 'utf8'), process.env.SKILLGATE_SKILL_ARGS, process.env.SKILLGATE_SKILL_NAME);\n",
  "scripts/echo.cjs":
    "const fs = require('node:fs');\nconsole.log('cjs', fs.readFileSync(0, 'utf8'), process.env.SKILLGATE_SKILL_ARGS, process.env.SKILLGATE_SKILL_NAME);\n",
  "scripts/echo.mjs":
    "import { readFileSync } from 'node:fs';\nconsole.log('mjs', readFileSync(0, 'utf8'), process.env.SKILLGATE_SKILL_ARGS, process.env.SKILLGATE_SKILL_NAME);\n",
  "scripts/echo.ts": [
    "import { readFileSync } from 'node:fs';",
    "interface Args { readonly n: number }",
    "type Name = string | undefined;",
    "const input: string = readFileSync(0, 'utf8');",
    "const parsed = JSON.parse(input) as Args;",
    "const name: Name = process.env.SKILLGATE_SKILL_NAME;",
    "enum Kind { Ts = 'ts' }",
    "console.log(Kind.Ts, input, process.env.SKILLGATE_SKILL_ARGS, name, parsed.n satisfies number);",
    "",
  ].join("\n"),
  "scripts/echo.sh": 'echo "sh $(cat) $SKILLGATE_SKILL_ARGS $SKILLGATE_SKILL_NAME"\n',
  "scripts/echo.bash": 'echo "bash $(cat) $SKILLGATE_SKILL_ARGS $SKILLGATE_SKILL_NAME"\n',
  "scripts/hello.cs": 'Console.WriteLine("hello");\n',
};

function localRunner(data: string, options: { searchPath?: string } = {}): LocalRunner {
  return new LocalRunner({
    dataFolder: data,
    isTrusted: () => true,
    ...(options.searchPath !== undefined ? { languages: { searchPath: options.searchPath } } : {}),
  });
}

describe("languages", () => {
  it("interpreters are the first python3, node and bash on PATH, as absolute paths", () => {
    for (const language of ["python", "node", "bash"] as const) {
      const resolved = languageInterpreter(language);
      if (!resolved.ok) throw new Error(resolved.problem);
      expect(resolved.interpreter.source, language).toBe("path");
      expect(resolved.interpreter.executable, language).toMatch(/^\//);
    }
  });

  it.each([
    ["scripts/echo.py", "python"],
    ["scripts/echo.js", "js"],
    ["scripts/echo.cjs", "cjs"],
    ["scripts/echo.mjs", "mjs"],
    ["scripts/echo.ts", "ts"],
    ["scripts/echo.sh", "sh"],
    ["scripts/echo.bash", "bash"],
  ])("%s runs and gets its arguments on stdin and in SKILLGATE_SKILL_ARGS", async (script, tag) => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "langs", SCRIPTS);
    const result = await localRunner(data).run(requestFor(folder, script, { arguments: { n: 1 } }));
    expect(result.stderr).toBe("");
    expect(result.status).toBe("ok");
    expect(result.exitCode).toBe(0);
    const shown = tag === "ts" ? `ts {"n":1} {"n":1} langs 1` : `${tag} {"n":1} {"n":1} langs`;
    expect(result.stdout.trim()).toBe(shown);
  });

  it("a .ts script's transpiled module lives in the work folder, which is removed afterwards", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "ts-where", {
      "scripts/where.ts": "const here: string = import.meta.url;\nconsole.log(here);\n",
    });
    const result = await localRunner(data).run(requestFor(folder, "scripts/where.ts"));
    expect(result.status).toBe("ok");
    expect(result.stdout.trim()).toMatch(
      new RegExp(`^file://${join(data, "runs", "work")}/[0-9a-f-]{36}/\\.skillgate-ts/where\\.mjs$`),
    );
  });

  it("a .cs script without dotnet on PATH is refused with language_unavailable", async () => {
    const { data, skills, root } = runnerTree();
    const folder = writeSkillFolder(skills, "csharp", SCRIPTS);
    mkdirSync(join(root, "empty-bin"));
    const result = await localRunner(data, { searchPath: join(root, "empty-bin") }).run(
      requestFor(folder, "scripts/hello.cs"),
    );
    expect(result.status).toBe("refused");
    expect(result.code).toBe("language_unavailable");
    expect(result.message).toBe(
      "HOST: scripts/hello.cs is a C# script and needs the .NET SDK (dotnet on PATH), which is not installed on this host, so it did not run. Tell the host's owner, or use a Python, JavaScript or shell script. [language_unavailable]",
    );
  });

  it("a .cs script runs as `dotnet run <file> -p:PublishAot=false -p:NuGetAudit=false` when dotnet is on PATH", async () => {
    const { data, skills, root } = runnerTree();
    const folder = writeSkillFolder(skills, "csharp", SCRIPTS);
    const bin = join(root, "bin");
    mkdirSync(bin);
    // A stand-in dotnet that prints the arguments it was given, one per line.
    writeFileSync(join(bin, "dotnet"), '#!/bin/sh\nfor argument in "$@"; do echo "$argument"; done\n');
    chmodSync(join(bin, "dotnet"), 0o755);
    expect(dotnetPath({ searchPath: `relative:${bin}` })).toBe(join(bin, "dotnet"));
    const result = await localRunner(data, { searchPath: bin }).run(requestFor(folder, "scripts/hello.cs"));
    expect(result.status).toBe("ok");
    const snapshot = join(data, "runs", "snapshots", hashOf(folder));
    expect(result.stdout.trim().split("\n")).toEqual([
      "run",
      join(snapshot, "scripts/hello.cs"),
      ...DOTNET_RUN_FLAGS,
    ]);
  });
});
