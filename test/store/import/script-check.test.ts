import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readBuildErrors } from "../../../src/store/import/dotnet-check.js";
import { checkSkillScripts } from "../../../src/store/import/script-check.js";

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function skillWith(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "skillgate-scripts-"));
  folders.push(folder);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
  return folder;
}

/** Each language: a good script, and a broken one whose first error is on `line`. */
const languages: { name: string; good: [string, string]; broken: [string, string]; line: number }[] = [
  {
    name: "Python",
    good: ["scripts/ok.py", "import sys\n\ndef main():\n    print(sys.argv)\n\nmain()\n"],
    broken: ["scripts/bad.py", "import sys\n\ndef main(:\n    pass\n"],
    line: 3,
  },
  {
    name: "Python indentation",
    good: ["scripts/ok2.py", "if True:\n    x = 1\n"],
    broken: ["scripts/indent.py", "x = 1\nif x:\nprint(x)\n"],
    line: 3,
  },
  {
    name: "CommonJS",
    good: ["scripts/ok.cjs", "const fs = require('node:fs');\nmodule.exports = () => fs;\n"],
    broken: ["scripts/bad.cjs", "const a = 1;\n\nconst b = ;\n"],
    line: 3,
  },
  {
    name: "ES module",
    good: ["scripts/ok.mjs", "import fs from 'node:fs';\nexport const x = await Promise.resolve(fs);\n"],
    broken: ["scripts/bad.mjs", "import fs from 'node:fs';\nexport const x = {\n"],
    line: 3,
  },
  {
    name: "JavaScript as a module",
    good: ["scripts/ok.js", "#!/usr/bin/env node\nimport fs from 'node:fs';\nconsole.log(fs);\n"],
    broken: ["scripts/bad-module.js", "import fs from 'node:fs';\nconsole.log(fs);\nconst x = ;\n"],
    line: 3,
  },
  {
    name: "JavaScript as a script",
    good: ["scripts/ok-script.js", "const fs = require('node:fs');\nconsole.log(fs);\n"],
    broken: ["scripts/bad-script.js", "const fs = require('node:fs');\nfunction () {}\n"],
    line: 2,
  },
  {
    name: "TypeScript",
    good: ["scripts/ok.ts", "interface A { b: number }\nexport const a: A = { b: 1 };\n"],
    broken: ["scripts/bad.ts", "interface A { b: number }\n\nexport const a: A = { b: 1 ;\n"],
    line: 3,
  },
  {
    name: "bash",
    good: ["scripts/ok.sh", '#!/bin/bash\nif [ -n "$1" ]; then\n  echo "$1"\nfi\n'],
    broken: ["scripts/bad.sh", '#!/bin/bash\nif [ -n "$1" ]; then\n  echo "$1"\n'],
    line: 4,
  },
  {
    name: "bash extension",
    good: ["scripts/ok.bash", 'for f in a b; do echo "$f"; done\n'],
    broken: ["scripts/bad.bash", "echo start\necho (\n"],
    line: 2,
  },
];

describe("checkSkillScripts", () => {
  it.each(languages)(
    "$name: a good script passes and a broken one is reported with file and line",
    async (language) => {
      const folder = await skillWith({
        [language.good[0]]: language.good[1],
        [language.broken[0]]: language.broken[1],
      });
      const result = await checkSkillScripts(folder);
      expect(result.warnings).toEqual([]);
      expect(result.errors.length).toBeGreaterThan(0);
      expect(result.errors.every((problem) => problem.file === language.broken[0])).toBe(true);
      expect(result.errors[0]).toMatchObject({
        file: language.broken[0],
        line: language.line,
        code: "syntax_error",
      });
      expect(result.errors[0]?.message.length).toBeGreaterThan(0);
    },
  );

  it("never runs a script and writes nothing into the skill", async () => {
    const marker = join(tmpdir(), `skillgate-ran-${process.pid}-${Date.now()}`);
    const folder = await skillWith({
      "SKILL.md": "---\nname: x\ndescription: y\n---\n",
      "scripts/a.py": `open(${JSON.stringify(`${marker}-py`)}, 'w').write('ran')\n`,
      "scripts/b.js": `require('node:fs').writeFileSync(${JSON.stringify(`${marker}-js`)}, 'ran');\n`,
      "scripts/c.sh": `touch ${JSON.stringify(`${marker}-sh`)}\n`,
    });
    const result = await checkSkillScripts(folder);
    expect(result).toEqual({ errors: [], warnings: [] });
    const leftovers = (await readdir(tmpdir())).filter((name) =>
      name.startsWith(`skillgate-ran-${process.pid}`),
    );
    expect(leftovers).toEqual([]);
    expect((await readdir(folder, { recursive: true })).map(String).sort()).toEqual([
      "SKILL.md",
      "scripts",
      "scripts/a.py",
      "scripts/b.js",
      "scripts/c.sh",
    ]);
  });

  it("does not pass NODE_OPTIONS or BASH_ENV to checkers", async () => {
    const hook = await skillWith({});
    const marker = join(hook, "hook-ran");
    await writeFile(
      join(hook, "hook.cjs"),
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');\n`,
    );
    await writeFile(join(hook, "hook.sh"), `touch ${JSON.stringify(marker)}\n`);
    const folder = await skillWith({ "a.js": "const a = 1;\n", "b.sh": "echo hi\n" });
    const saved = { node: process.env.NODE_OPTIONS, bash: process.env.BASH_ENV };
    process.env.NODE_OPTIONS = `--require ${join(hook, "hook.cjs")}`;
    process.env.BASH_ENV = join(hook, "hook.sh");
    try {
      expect(await checkSkillScripts(folder)).toEqual({ errors: [], warnings: [] });
    } finally {
      for (const [name, value] of [
        ["NODE_OPTIONS", saved.node],
        ["BASH_ENV", saved.bash],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(await readdir(hook)).not.toContain("hook-ran");
  });

  it("warns, without blocking, when a checker is missing", async () => {
    const emptyPath = await skillWith({});
    const folder = await skillWith({
      "a.py": "x = (\n",
      "b.sh": "if\n",
      "c.cs": "class A {\n",
      "d.js": "ok = 1;\n",
    });
    const result = await checkSkillScripts(folder, { searchPath: emptyPath });
    expect(result.errors).toEqual([]);
    expect(result.warnings.map((problem) => [problem.file, problem.code])).toEqual([
      ["a.py", "not_checked"],
      ["b.sh", "not_checked"],
      ["c.cs", "not_checked"],
    ]);
    expect(result.warnings[2]?.message).toContain("dotnet is not installed");
  });

  it("builds C# with the documented flags when dotnet is on the path, and reports its errors by line", async () => {
    const bin = await skillWith({});
    const log = join(bin, "args.log");
    // A stand-in dotnet: records its arguments and prints one MSBuild diagnostic for the copied file.
    await writeFile(
      join(bin, "dotnet"),
      `#!/bin/sh\necho "$@" > ${JSON.stringify(log)}\n/bin/ls > ${JSON.stringify(`${log}.files`)}\necho "$PWD/tool.cs(3,9): error CS1002: ; expected [$PWD/tool.csproj]"\nexit 1\n`,
    );
    await chmod(join(bin, "dotnet"), 0o755);
    const folder = await skillWith({
      "scripts/tool.cs": "using System;\n\nConsole.WriteLine(1)\n",
      "scripts/Directory.Build.props": "<Project/>",
    });
    const result = await checkSkillScripts(folder, { searchPath: bin });
    expect(result.errors).toEqual([
      {
        file: "scripts/tool.cs",
        line: 3,
        column: 9,
        code: "syntax_error",
        language: "csharp",
        message: "CS1002: ; expected",
      },
    ]);
    const { readFile } = await import("node:fs/promises");
    const args = await readFile(log, "utf8");
    expect(args).toContain("build tool.cs -p:PublishAot=false -p:NuGetAudit=false");
    // Only the script is copied for the build; the skill's MSBuild files are never seen.
    expect((await readFile(`${log}.files`, "utf8")).trim()).toBe("tool.cs");
  });

  it("reports a timeout as a warning", async () => {
    const bin = await skillWith({});
    await writeFile(join(bin, "python3"), "#!/bin/sh\n/bin/sleep 30\n");
    await chmod(join(bin, "python3"), 0o755);
    const folder = await skillWith({ "slow.py": "x = 1\n" });
    const result = await checkSkillScripts(folder, { searchPath: bin, timeoutMs: 300 });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toMatchObject([{ file: "slow.py", code: "checker_timeout" }]);
  });

  it("skips links and files of other kinds", async () => {
    const folder = await skillWith({ "notes.md": "x = (\n", "data.json": "{" });
    const { symlink } = await import("node:fs/promises");
    await symlink("/etc/passwd", join(folder, "link.py"));
    expect(await checkSkillScripts(folder)).toEqual({ errors: [], warnings: [] });
  });
});

describe("readBuildErrors", () => {
  it("keeps only the script's errors, once each, and warns on a build that failed elsewhere", () => {
    const output = [
      "/tmp/w/tool.cs(3,9): error CS1002: ; expected [/tmp/w/tool.csproj]",
      "/tmp/w/tool.cs(3,9): error CS1002: ; expected [/tmp/w/tool.csproj]",
      "/tmp/w/tool.cs(1,1): warning CS8019: Unnecessary using directive",
      "/tmp/w/other.cs(5,1): error CS0103: nope",
    ].join("\n");
    expect(readBuildErrors(output, "tool.cs", "scripts/tool.cs")).toEqual([
      {
        file: "scripts/tool.cs",
        line: 3,
        column: 9,
        code: "syntax_error",
        language: "csharp",
        message: "CS1002: ; expected",
      },
    ]);
    expect(readBuildErrors("error NU1101: Unable to find package", "tool.cs", "tool.cs")[0]?.code).toBe(
      "checker_failed",
    );
  });
});
