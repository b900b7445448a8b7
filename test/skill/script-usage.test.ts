import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitCode } from "../../src/skill/code-text.js";
import {
  MAX_SCRIPT_READ_BYTES,
  readScriptCommandLine,
  type ScriptCommandLine,
  scriptCommandLine,
} from "../../src/skill/script-usage.js";
import { listSkillScripts } from "../../src/skill/scripts.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "skills");

/** Each fixture skill's one script, and what its text says about its command line. */
const CASES: Array<[string, ScriptCommandLine | undefined]> = [
  [
    "argv-python-sys-argv",
    { reads: "sys.argv", usage: "convert.py [input file] [output folder]", usageFrom: "usage text" },
  ],
  [
    "argv-python-argparse",
    {
      reads: "argparse",
      usage: "fill.py [options] input values [values ...]",
      usageFrom: "argparse arguments",
    },
  ],
  [
    "argv-python-argparse-usage",
    { reads: "argparse", usage: "check.py FILE [--strict]", usageFrom: "argparse usage" },
  ],
  [
    "argv-python-docstring",
    { reads: "sys.argv", usage: "report.py DATA.csv [--top N]", usageFrom: "docstring" },
  ],
  [
    "argv-python-unknown-placeholder",
    { reads: "sys.argv", usage: "split.py FOLDER", usageFrom: "usage text" },
  ],
  ["argv-python-none", undefined],
  ["argv-node-process-argv", { reads: "process.argv", usage: "count.mjs FILE", usageFrom: "usage text" }],
  [
    "argv-node-parse-args",
    { reads: "util.parseArgs", usage: "lint.js [--fix] FILES...", usageFrom: "comment" },
  ],
  ["argv-node-none", undefined],
  [
    "argv-shell-positional",
    { reads: "positional parameters", usage: "archive.sh FOLDER [NAME]", usageFrom: "usage text" },
  ],
  ["argv-shell-getopts", { reads: "getopts", usage: "resize.sh [-w WIDTH] IMAGE", usageFrom: "usage text" }],
  ["argv-shell-function-only", undefined],
  [
    "argv-shell-main-forward",
    { reads: "positional parameters", usage: "deploy.sh ENVIRONMENT", usageFrom: "comment" },
  ],
];

describe("how a script reads its command line, read statically (docs/running-scripts.md)", () => {
  it.each(CASES)("%s", (fixture, expected) => {
    const folder = join(FIXTURES, fixture);
    const scripts = listSkillScripts(folder);
    expect(scripts).toHaveLength(1);
    const script = scripts[0] as (typeof scripts)[number];
    expect(readScriptCommandLine(join(folder, script.path), script.language)).toEqual(expected);
  });

  it("says nothing for a language it does not read, a link, a file too large, or text that is not UTF-8", () => {
    const folder = mkdtempSync(join(tmpdir(), "skillgate-usage-"));
    const reads = "import sys\nprint(sys.argv)\n";
    writeFileSync(join(folder, "a.py"), reads);
    expect(readScriptCommandLine(join(folder, "a.py"), "python")?.reads).toBe("sys.argv");
    symlinkSync(join(folder, "a.py"), join(folder, "link.py"));
    expect(readScriptCommandLine(join(folder, "link.py"), "python")).toBeUndefined();
    writeFileSync(join(folder, "big.py"), `${reads}#${"x".repeat(MAX_SCRIPT_READ_BYTES)}\n`);
    expect(readScriptCommandLine(join(folder, "big.py"), "python")).toBeUndefined();
    writeFileSync(join(folder, "latin1.py"), Buffer.concat([Buffer.from(reads), Buffer.from([0xe9, 0x0a])]));
    expect(readScriptCommandLine(join(folder, "latin1.py"), "python")).toBeUndefined();
    expect(readScriptCommandLine(join(folder, "missing.py"), "python")).toBeUndefined();
    writeFileSync(join(folder, "app.cs"), "Console.WriteLine(args[0]); // Usage: app.cs NAME\n");
    expect(readScriptCommandLine(join(folder, "app.cs"), "csharp")).toBeUndefined();
  });

  it("never shows a usage line with control characters or one that is too long", () => {
    const escaped = scriptCommandLine(
      'import sys\nsys.argv\nprint("Usage: x.py \\u001b[2J FILE")\n',
      "python",
      "x.py",
    );
    expect(escaped).toEqual({ reads: "sys.argv", usage: "x.py \\u001b[2J FILE", usageFrom: "usage text" });
    const raw = scriptCommandLine(
      `import sys\nsys.argv\n# Usage: x.py \u001b]0;title\u0007 FILE\n`,
      "python",
      "x.py",
    );
    expect(raw).toEqual({ reads: "sys.argv" });
    const long = scriptCommandLine(`import sys\nsys.argv\n# Usage: ${"a".repeat(400)}\n`, "python", "x.py");
    expect(long).toEqual({ reads: "sys.argv" });
  });

  it("a TypeScript script is read like JavaScript; argv in a template literal or a comment is not code", () => {
    expect(scriptCommandLine("const [a] = process.argv.slice(2);\n", "typescript", "a.ts")).toEqual({
      reads: "process.argv",
    });
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a script's template literal, as text
      scriptCommandLine("const s = `${process.argv}`; // process.argv\n", "node", "a.js"),
    ).toBeUndefined();
    expect(scriptCommandLine("# sys.argv\nx = 'sys.argv'\n", "python", "a.py")).toBeUndefined();
  });

  it("argparse with sub-commands or arguments named by variables gets no usage line built", () => {
    const sub =
      'import argparse\np = argparse.ArgumentParser()\ns = p.add_subparsers()\np.add_argument("x")\n';
    expect(scriptCommandLine(sub, "python", "a.py")).toEqual({ reads: "argparse" });
    const named = "import argparse\np = argparse.ArgumentParser()\np.add_argument(NAME)\n";
    expect(scriptCommandLine(named, "python", "a.py")).toEqual({ reads: "argparse" });
    const counted = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("pair", nargs=COUNT)\n';
    expect(scriptCommandLine(counted, "python", "a.py")).toEqual({ reads: "argparse" });
  });
});

describe("splitCode", () => {
  it("blanks comments and string contents, keeping offsets and newlines", () => {
    const text = 'x = "a#b"  # note\ny = 1\n';
    const split = splitCode(text, "python");
    expect(split.code).toHaveLength(text.length);
    expect(split.code).toBe('x = "   "        \ny = 1\n');
    expect(split.comments).toEqual([" note"]);
    expect(split.strings).toEqual([{ text: "a#b", kind: "plain", start: 4 }]);
  });

  it("keeps shell double quotes as code, blanks single quotes, comments and quoted heredocs", () => {
    const text = "echo \"$1\" '$2' # $3\ncat <<'END'\n$4\nEND\ncat <<END\n$5\nEND\n";
    const { code } = splitCode(text, "shell");
    expect(code).toContain('"$1"');
    for (const hidden of ["$2", "$3", "$4"]) expect(code).not.toContain(hidden);
    expect(code).toContain("$5");
  });
});
