import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findSkillFolderLinks } from "../../src/skill/skill-files.js";
import { makeTree, writeSkill } from "../helpers/skill-tree.js";

describe("findSkillFolderLinks", () => {
  it("finds every link below a skill, says which lead outside it, and follows none", () => {
    const tree = makeTree();
    const outside = join(tree, "outside.txt");
    writeFileSync(outside, "secret\n");
    const skill = writeSkill(tree, "linky", {
      files: { "references/guide.md": "g\n", "scripts/run.py": "1\n" },
    });
    mkdirSync(join(tree, "elsewhere"));
    symlinkSync(outside, join(skill, "scripts", "absolute-out"));
    symlinkSync("../../outside.txt", join(skill, "scripts", "relative-out"));
    symlinkSync("../references/guide.md", join(skill, "scripts", "inside"));
    symlinkSync("missing-target", join(skill, "dangling-inside"));
    symlinkSync("../nowhere/at-all", join(skill, "dangling-out"));
    symlinkSync(join(tree, "elsewhere"), join(skill, "linked-folder"));
    // A link back into the skill through an absolute path that stays inside.
    symlinkSync(join(skill, "references"), join(skill, "refs"));
    const before = readdirSync(tree, { recursive: true }).sort();
    expect(findSkillFolderLinks(skill)).toEqual([
      { path: "dangling-inside", target: "missing-target", escapes: false },
      { path: "dangling-out", target: "../nowhere/at-all", escapes: true },
      { path: "linked-folder", target: join(tree, "elsewhere"), escapes: true },
      { path: "refs", target: join(skill, "references"), escapes: false },
      { path: "scripts/absolute-out", target: outside, escapes: true },
      { path: "scripts/inside", target: "../references/guide.md", escapes: false },
      { path: "scripts/relative-out", target: "../../outside.txt", escapes: true },
    ]);
    expect(readdirSync(tree, { recursive: true }).sort()).toEqual(before);
  });

  it("a clean skill and a missing folder have none", () => {
    const tree = makeTree();
    expect(findSkillFolderLinks(writeSkill(tree, "clean", { files: { "scripts/a.py": "1\n" } }))).toEqual([]);
    expect(findSkillFolderLinks(join(tree, "missing"))).toEqual([]);
  });

  it("a link that looks inside but resolves outside (through a linked parent) escapes", () => {
    const tree = makeTree();
    const skill = writeSkill(tree, "tricky");
    mkdirSync(join(tree, "real"));
    writeFileSync(join(tree, "real", "file"), "x\n");
    // sub -> ../real (outside); through-sub -> sub/file: written inside, resolves outside.
    symlinkSync(join(tree, "real"), join(skill, "sub"));
    symlinkSync("sub/file", join(skill, "through-sub"));
    expect(findSkillFolderLinks(skill).find((link) => link.path === "through-sub")).toEqual({
      path: "through-sub",
      target: "sub/file",
      escapes: true,
    });
  });
});
