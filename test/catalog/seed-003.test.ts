import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillDiscovery } from "../../src/catalog/discover.js";
import { find, findByName } from "../../src/catalog/find.js";
import { clipDescription, skillIndex } from "../../src/catalog/skill-index.js";
import { SKILL_DESC_MAX } from "../../src/core/limits.js";
import { Skill } from "../../src/skill/skill.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/**
 * What docs/skills.md says of a skills folder ("A skill", "Where skills come from"), of the
 * index ("The index a model sees") and of `findSkill`, checked on one small project tree.
 */

const NOTEBOOK_TESTS = `---
name: notebook-tests
description: Write executable test cells in the notebook that owns the code.
---

Put the readable case in the notebook and the bulk assertions in \`tests/\`.
`;

/** The tree these tests share: a project root with `.agents/skills/notebook-tests` and `.agents/skills/plain`. */
function seedTree(): { tmp: string; folders: ReturnType<typeof isolatedFolders> } {
  const tmp = makeTree();
  const skills = join(tmp, ".agents", "skills");
  writeSkill(skills, "notebook-tests", { raw: NOTEBOOK_TESTS });
  writeSkill(skills, "plain", { raw: "Say what changed.\n\nAnd nothing else.\n" });
  return { tmp, folders: isolatedFolders(tmp) };
}

describe("docs/skills.md: a skills folder", () => {
  it("reads front matter, and without it the folder name and first paragraph", () => {
    const { tmp, folders } = seedTree();
    const result = new SkillDiscovery().discover({ folders, roots: [tmp], builtins: false });
    expect(result.skills.map((skill) => [skill.name, skill.description])).toEqual([
      ["notebook-tests", "Write executable test cells in the notebook that owns the code."],
      ["plain", "Say what changed."],
    ]);
    const got = new Map(result.skills.map((skill) => [skill.name, skill]));
    expect(got.get("notebook-tests")?.text()).toContain("bulk assertions");
    expect(got.get("notebook-tests")?.source).toBe("project");
    expect(got.get("plain")?.where).toBe(join(tmp, ".agents", "skills", "plain", "SKILL.md"));
  });
});

describe("docs/skills.md: discover", () => {
  it("collects every source, sorted by name, built-ins included", () => {
    const { tmp, folders } = seedTree();
    const skills = new SkillDiscovery().discover({ folders, roots: [tmp] }).skills;
    const names = skills.map((skill) => skill.name);
    expect(names).toContain("notebook-tests");
    expect(names).toContain("plain");
    expect(skills.some((skill) => skill.source === "builtin")).toBe(true);
    expect(names).toEqual([...names].sort());
  });

  it("a skill the caller passes in wins (Mine wins.)", () => {
    const { tmp, folders } = seedTree();
    const mine = new SkillDiscovery().discover({
      folders,
      roots: [tmp],
      extra: [new Skill({ name: "plain", source: "ext", description: "Mine wins." })],
    });
    const plain = mine.skills.filter((skill) => skill.name === "plain");
    expect(plain.map((skill) => skill.description)).toEqual(["Mine wins."]);
    expect(plain[0]?.source).toBe("ext");
    const decisions = mine.decisions.filter((decision) => decision.name === "plain");
    expect(decisions.map((decision) => [decision.source, decision.decision])).toEqual([
      ["project", "shadowed"],
      ["ext", "registered"],
    ]);
  });

  it("a learned skill is found, but loses to a person's folder", () => {
    const { tmp, folders } = seedTree();
    const learned = join(folders.data, "learned", "skills");
    for (const [name, description] of [
      ["notebook-tests", "Learned version."],
      ["triage", "Only learned."],
    ] as const) {
      mkdirSync(join(learned, name), { recursive: true });
      writeFileSync(
        join(learned, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: ${description}\n---\n\nbody\n`,
      );
    }
    const result = new SkillDiscovery().discover({ folders, roots: [tmp], builtins: false });
    const got = new Map(result.skills.map((skill) => [skill.name, skill.description]));
    expect(got.get("triage")).toBe("Only learned.");
    expect(got.get("notebook-tests")).toBe("Write executable test cells in the notebook that owns the code.");
    const learnedNotebook = result.decisions.find(
      (decision) => decision.name === "notebook-tests" && decision.source === "learned",
    );
    expect(learnedNotebook?.decision).toBe("shadowed");
  });
});

describe("docs/skills.md: the index", () => {
  const notebook = (): Skill[] => {
    const { tmp, folders } = seedTree();
    return new SkillDiscovery()
      .discover({ folders, roots: [tmp], builtins: false })
      .skills.filter((skill) => skill.name === "notebook-tests");
  };

  it("lists the name and description and tells the model to read_skill first, never the body", () => {
    const index = skillIndex(notebook());
    expect(index).toContain("`notebook-tests`");
    expect(index).toContain("read_skill");
    expect(index).not.toContain("Put the readable case");
    expect(index).toBe(
      [
        "## Skills",
        "",
        "Know-how available to you. Read one with `read_skill(name)` when its description matches what you are about to do, *before* you do it.",
        "",
        "- `notebook-tests` -- Write executable test cells in the notebook that owns the code.",
      ].join("\n"),
    );
  });

  it("is empty for no skills", () => {
    expect(skillIndex([])).toBe("");
  });

  it("clips a long description to SKILL_DESC_MAX at a word boundary", () => {
    const clipped = clipDescription("word ".repeat(60));
    expect(clipped.length).toBe(SKILL_DESC_MAX);
    expect(clipped.endsWith("word…")).toBe(true);
  });
});

describe("docs/skills.md: find", () => {
  const skills = [
    new Skill({ name: "notebook-tests", source: "md", description: "d" }),
    new Skill({ name: "plain", source: "md", description: "d" }),
  ];

  it("exact name, then unique prefix, then unique substring; nothing for no match", () => {
    expect(find(skills, "notebook-tests")?.name).toBe("notebook-tests");
    expect(find(skills, "notebook")?.name).toBe("notebook-tests");
    expect(find(skills, "tests")?.name).toBe("notebook-tests");
    expect(find(skills, "nope")).toBeUndefined();
    expect(findByName(skills, "notebook").by).toBe("prefix");
    expect(findByName(skills, "tests").by).toBe("substring");
  });

  it("exact beats prefix; an ambiguous prefix is nothing, with the candidates", () => {
    const two = [new Skill({ name: "edit", source: "md" }), new Skill({ name: "editor", source: "md" })];
    expect(find(two, "edit")?.name).toBe("edit");
    expect(find(two, "edi")).toBeUndefined();
    expect(findByName(two, "edi")).toEqual({ match: undefined, by: "none", candidates: ["edit", "editor"] });
    expect(findByName(two, "dit").candidates).toEqual(["edit", "editor"]);
  });

  it("a prefix match is preferred to a substring match, and the empty query matches nothing", () => {
    const items = [{ name: "alpha-x" }, { name: "x-alpha" }];
    expect(find(items, "alpha")?.name).toBe("alpha-x");
    expect(findByName(items, "")).toEqual({ match: undefined, by: "none", candidates: [] });
  });
});
