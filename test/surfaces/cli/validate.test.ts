import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";
import { cliSandbox } from "./harness.js";

/** validate takes a folder and no catalog flags. */
async function validate(directory: string, json = false) {
  return cliSandbox().run(["validate", directory, ...(json ? ["--json"] : [])]);
}

describe("skillgate validate", () => {
  it("exit 0 for a valid skill", async () => {
    const directory = writeSkill(makeTree(), "good-skill", {
      frontMatter: { name: "good-skill", description: "Does good things.", license: "MIT" },
      files: { "scripts/run.py": "print(1)\n", "references/notes.md": "notes\n" },
    });
    const result = await validate(directory);
    expect(result).toEqual({ code: 0, out: "valid: good-skill\n", err: "" });
  });

  it.each([
    [
      "a name that does not match its folder",
      "folder-name",
      { name: "other-name", description: "d" },
      "name_mismatch",
    ],
    ["an upper-case name", "Upper", { name: "Upper", description: "d" }, "invalid_name"],
    ["a name with a double hyphen", "a--b", { name: "a--b", description: "d" }, "invalid_name"],
    [
      "a field outside the specification",
      "extra-field",
      { name: "extra-field", description: "d", owner: "me" },
      "unknown_field",
    ],
    [
      "a description over 1024 characters",
      "long-desc",
      { name: "long-desc", description: "x".repeat(1025) },
      "description_too_long",
    ],
    [
      "a name over 64 characters",
      "n".repeat(65),
      { name: "n".repeat(65), description: "d" },
      "name_too_long",
    ],
    [
      "metadata that is not text",
      "meta",
      { name: "meta", description: "d", metadata: { count: 3 } },
      "invalid_metadata",
    ],
    [
      "an invalid governance value",
      "gov",
      { name: "gov", description: "d", metadata: { "skillgate.tier": "root" } },
      "invalid_governance",
    ],
  ])("exit 1 for %s (strict only)", async (_label, folder, frontMatter, code) => {
    const directory = writeSkill(makeTree(), folder, { frontMatter });
    const result = await validate(directory);
    expect(result.code).toBe(1);
    expect(result.err).toBe("");
    expect(result.out).toMatch(new RegExp(`^error ${code}`, "m"));
    expect(result.out).toMatch(/\d+ problem\(s\)\n$/);
  });

  it("exit 1 for a symlink inside the skill", async () => {
    const tree = makeTree();
    const directory = writeSkill(tree, "linked", { files: { "references/real.md": "x\n" } });
    symlinkSync("/etc/passwd", join(directory, "references", "passwd"));
    const result = await validate(directory);
    expect(result.code).toBe(1);
    expect(result.out).toContain("error symlink_not_allowed: references/passwd is a symbolic link");
    expect(result.out).toContain("fix: replace the link with a copy of the file");
  });

  it("exit 1 for a folder without SKILL.md and for a path that is not a folder", async () => {
    const tree = makeTree();
    mkdirSync(join(tree, "empty"));
    expect((await validate(join(tree, "empty"))).code).toBe(1);
    const missing = await validate(join(tree, "missing"));
    expect(missing.code).toBe(1);
    expect(missing.out).toContain(`error not_found: ${join(tree, "missing")} is not a folder`);
  });

  it("--json gives valid, name and diagnostics", async () => {
    const directory = writeSkill(makeTree(), "folder-name", {
      frontMatter: { name: "other-name", description: "d" },
    });
    const result = await validate(directory, true);
    expect(result.code).toBe(1);
    const parsed = JSON.parse(result.out) as {
      valid: boolean;
      name: string;
      diagnostics: { code: string; severity: string }[];
    };
    expect(Object.keys(parsed)).toEqual(["valid", "name", "diagnostics"]);
    expect(parsed.valid).toBe(false);
    expect(parsed.name).toBe("other-name");
    expect(parsed.diagnostics.map((item) => [item.code, item.severity])).toEqual([
      ["name_mismatch", "error"],
    ]);
  });

  it("the same skill loads with a warning in discovery but fails validate", async () => {
    const sandbox = cliSandbox();
    const directory = writeSkill(sandbox.skills, "folder-name", {
      frontMatter: { name: "other-name", description: "d" },
    });
    const list = JSON.parse((await sandbox.run(["list", "--json"])).out) as {
      skills: { decision: string }[];
    };
    expect(list.skills.map((skill) => skill.decision)).toEqual(["registered"]);
    expect((await sandbox.run(["validate", directory])).code).toBe(1);
  });

  it("a SKILL.md without front matter: validate fails with missing_front_matter, listing loads it", async () => {
    const sandbox = cliSandbox();
    const directory = writeSkill(sandbox.skills, "plain-notes", {
      frontMatter: null,
      body: "Say what changed.\n\nAnd nothing else.\n",
    });
    const strict = await validate(directory);
    expect(strict.code).toBe(1);
    expect(strict.out).toBe(
      "error missing_front_matter (front matter): SKILL.md has no front matter; the Agent Skills specification requires one with name and description\n" +
        "    fix: start SKILL.md with a --- line, name: plain-notes, a description: line, and a closing --- line\n" +
        "1 problem(s)\n",
    );
    const json = JSON.parse((await validate(directory, true)).out) as {
      valid: boolean;
      diagnostics: { code: string; severity: string; path: string }[];
    };
    expect(json.valid).toBe(false);
    expect(json.diagnostics).toEqual([
      expect.objectContaining({
        code: "missing_front_matter",
        severity: "error",
        path: join(directory, "SKILL.md"),
      }),
    ]);
    // Lenient loading keeps the fallback: the folder's name and the first paragraph.
    const list = JSON.parse((await sandbox.run(["list", "--json"])).out) as {
      skills: { name: string; decision: string; description: string; reasons: unknown[] }[];
    };
    expect(list.skills).toEqual([
      expect.objectContaining({
        name: "plain-notes",
        decision: "registered",
        description: "Say what changed.",
        reasons: [],
      }),
    ]);
  });
});
