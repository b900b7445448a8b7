import { mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeTree } from "../../../src/core/remove-tree.js";
import { readDeclaredPackages } from "../../../src/skill/packages/declared.js";
import { readScriptMetadata } from "../../../src/skill/packages/pep723.js";
import { checkRequirement, readRequirementsFile } from "../../../src/skill/packages/requirements.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) removeTree(folder);
});

function skillWith(files: Record<string, string>): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-declared-")));
  folders.push(folder);
  for (const [path, text] of Object.entries({
    "SKILL.md": "---\nname: x\ndescription: x\n---\n",
    ...files,
  })) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return folder;
}

describe("PEP 723 blocks", () => {
  it("reads dependencies and requires-python over several lines, with comments, both string kinds and a [tool] table", () => {
    const text = [
      "#!/usr/bin/env python3",
      "# /// script",
      '# requires-python = ">=3.9"',
      "# dependencies = [",
      '#   "pypdf>=4",  # PDFs',
      "#   'PyYAML==6.0.1',",
      '#   "rich[jupyter]; python_version >= \\"3.8\\"",',
      "# ]",
      "#",
      "# [tool.some-tool]",
      '# anything = { inline = "tables" }',
      "# ///",
      "import pypdf",
    ].join("\n");
    expect(readScriptMetadata(text)).toEqual({
      kind: "script",
      dependencies: ["pypdf>=4", "PyYAML==6.0.1", 'rich[jupyter]; python_version >= "3.8"'],
      requiresPython: ">=3.9",
      line: 2,
    });
  });

  it("ends a block at the last `# ///` before the comments stop, and skips blocks of other types", () => {
    const text =
      '# /// other\n# x = 1\n# ///\n# /// script\n# dependencies = ["a"]\n# ///\n# ///\nprint(1)\n';
    // The comment run goes on to the last `# ///`, so (as the specification's regex does) the
    // `other` block takes the script block in: there is no script block.
    expect(readScriptMetadata(text)).toEqual({ kind: "none" });
    expect(
      readScriptMetadata('# /// other\n# x = 1\n# ///\n\n# /// script\n# dependencies = ["a"]\n# ///\n'),
    ).toMatchObject({
      kind: "script",
      dependencies: ["a"],
    });
    expect(readScriptMetadata("print('no block')\n")).toEqual({ kind: "none" });
  });

  it.each([
    ["no closing line", '# /// script\n# dependencies = ["a"]\nprint(1)\n', "no closing"],
    [
      "two script blocks",
      '# /// script\n# dependencies = ["a"]\n# ///\nx = 1\n# /// script\n# ///\n',
      "more than one",
    ],
    ["a number in dependencies", "# /// script\n# dependencies = [1]\n# ///\n", "strings only"],
    ["dependencies not an array", '# /// script\n# dependencies = "a"\n# ///\n', "array of strings"],
    ["a multi-line string", '# /// script\n# requires-python = """\n# >=3"""\n# ///\n', "multi-line"],
    ["a table other than [tool]", "# /// script\n# [project]\n# ///\n", "only [tool]"],
    ["a key twice", '# /// script\n# dependencies = []\n# dependencies = ["a"]\n# ///\n', "twice"],
    ["an unclosed string", '# /// script\n# dependencies = ["a\n# ///\n', "not closed"],
    ["text after a value", "# /// script\n# dependencies = [] x\n# ///\n", "after a value"],
  ])("%s is invalid", (_name, text, message) => {
    const read = readScriptMetadata(text);
    expect(read.kind).toBe("invalid");
    if (read.kind === "invalid") expect(read.message).toContain(message);
  });
});

describe("requirements", () => {
  it.each([
    ["pypdf"],
    ["pypdf>=4,<6"],
    ["PyYAML == 6.0.1"],
    ["rich[jupyter,extra]~=13.0"],
    ['pillow; sys_platform == "linux"'],
    ["name (>=1.0)"],
  ])("accepts %s", (text) => {
    expect(checkRequirement(text).ok).toBe(true);
  });

  it.each([
    ["", "empty"],
    ["pkg @ https://evil.test/pkg.whl", "direct references"],
    ["https://evil.test/pkg.whl", "direct references"],
    ["./local-folder", "direct references"],
    ["--index-url https://evil.test/simple", "pip options"],
    ["-e .", "pip options"],
    ['pkg; python_version > "3" --index-url https://evil.test/simple', "pip options"],
    ["pkg --hash=sha256:abc", "pip options"],
    ["pkg \\", "pip options"],
    ["pkg\u0007", "control character"],
    ["pkg >= ", "not a PEP 508"],
    ["x".repeat(501), "over 500"],
  ])("refuses %j", (text, reason) => {
    const checked = checkRequirement(text);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toContain(reason);
  });

  it("reads a requirements file line by line: comments and blanks skipped, options and continued lines refused", () => {
    const lines = readRequirementsFile("# top\npypdf>=4  # inline\n\n-r other.txt\nfoo \\\n");
    expect(lines).toEqual([
      { ok: true, requirement: "pypdf>=4", line: 2 },
      { ok: false, reason: expect.stringContaining("pip options"), line: 4, text: "-r other.txt" },
      { ok: false, reason: "continued lines are not read", line: 5, text: "foo \\" },
    ]);
  });
});

describe("readDeclaredPackages", () => {
  it("gathers the scripts' blocks and requirements files, each requirement once, with its sources", () => {
    const folder = skillWith({
      "scripts/a.py": '# /// script\n# dependencies = ["pypdf>=4"]\n# ///\n',
      "scripts/b.py": '# /// script\n# dependencies = ["pypdf>=4", "pyyaml"]\n# ///\n',
      "scripts/requirements.txt": "openpyxl\n",
      "scripts/plain.py": "print(1)\n",
    });
    const declared = readDeclaredPackages(folder);
    expect(declared.diagnostics).toEqual([]);
    expect(declared.python).toEqual({
      requirements: ["pypdf>=4", "pyyaml", "openpyxl"],
      sources: ["scripts/a.py", "scripts/b.py", "scripts/requirements.txt"],
      requiresPython: [],
    });
    expect(declared.node).toBeUndefined();
  });

  it.each([
    [
      "a bad block",
      { "scripts/a.py": "# /// script\n# dependencies = [1]\n# ///\n" },
      "invalid_script_metadata",
    ],
    [
      "a URL in a block",
      { "scripts/a.py": '# /// script\n# dependencies = ["a @ https://x.test/a.whl"]\n# ///\n' },
      "invalid_requirement",
    ],
    [
      "an index option in requirements.txt",
      { "requirements.txt": "--extra-index-url https://evil.test\npypdf\n" },
      "invalid_requirement",
    ],
    ["package.json that is not JSON", { "package.json": "{nope" }, "invalid_package_json"],
    [
      "package.json with dependencies and no lock",
      { "scripts/package.json": '{"dependencies": {"left-pad": "1.3.0"}}' },
      "package_lock_missing",
    ],
  ])("%s is a diagnostic and declares nothing from that file", (_name, files, code) => {
    const folder = skillWith(files);
    const before = readdirSync(folder, { recursive: true }).length;
    const declared = readDeclaredPackages(folder);
    expect(declared.diagnostics.map((item) => item.code)).toEqual([code]);
    expect(declared.python).toBeUndefined();
    expect(declared.node).toBeUndefined();
    expect(readdirSync(folder, { recursive: true }).length).toBe(before);
  });

  it("reads a package.json with its lock; development dependencies are not listed", () => {
    const folder = skillWith({
      "scripts/package.json": '{"dependencies": {"left-pad": "1.3.0"}, "devDependencies": {"vitest": "4"}}',
      "scripts/package-lock.json": "{}",
    });
    expect(readDeclaredPackages(folder).node).toEqual({
      folder: "scripts",
      lock: "package-lock.json",
      dependencies: ["left-pad@1.3.0"],
    });
  });
});
