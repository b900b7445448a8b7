import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasErrors } from "../../src/core/diagnostics.js";
import { loadSkillFolder } from "../../src/skill/load-skill.js";
import { skillFolder, skillText } from "./skill-folders.js";

describe("loadSkillFolder (docs/skills.md, A skill)", () => {
  it("reads name and description from front matter and the body lazily", () => {
    const directory = skillFolder(
      "notebook-tests",
      `---
name: notebook-tests
description: Write executable test cells in the notebook that owns the code.
---

Put the readable case in the notebook and the bulk assertions in \`tests/\`.
`,
    );
    const loaded = loadSkillFolder(directory, { source: "md" });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.governanceInvalid).toBe(false);
    const skill = loaded.skill;
    expect(skill?.name).toBe("notebook-tests");
    expect(skill?.source).toBe("md");
    expect(skill?.description).toBe("Write executable test cells in the notebook that owns the code.");
    expect(skill?.where).toBe(join(directory, "SKILL.md"));
    expect(skill?.directory).toBe(directory);
    expect(skill?.text()).toContain("bulk assertions");
    expect(skill?.text().startsWith("Put the readable case")).toBe(true);
  });

  it("without front matter: the folder name is the name, the first paragraph the description", () => {
    const directory = skillFolder("plain", "Say what changed.\n\nAnd nothing else.\n");
    const loaded = loadSkillFolder(directory, { source: "md" });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.name).toBe("plain");
    expect(loaded.skill?.description).toBe("Say what changed.");
    expect(loaded.skill?.text()).toBe("Say what changed.\n\nAnd nothing else.\n");
  });

  it("reads the body when asked, not when loaded", () => {
    const directory = skillFolder("later", skillText("name: later\ndescription: d", "first\n"));
    const loaded = loadSkillFolder(directory, { source: "md" });
    writeFileSync(join(directory, "SKILL.md"), skillText("name: later\ndescription: d", "second\n"));
    expect(loaded.skill?.text()).toBe("second\n");
  });

  it("a SKILL.md removed after loading gives a message, not an exception", () => {
    const directory = skillFolder("gone", skillText("name: gone\ndescription: d"));
    const skill = loadSkillFolder(directory, { source: "md" }).skill;
    rmSync(join(directory, "SKILL.md"));
    expect(skill?.text().startsWith("could not read skill gone: SkillUnreadableError: ")).toBe(true);
  });

  it("a folder without SKILL.md is missing_skill_file", () => {
    const directory = skillFolder("empty", "x");
    rmSync(join(directory, "SKILL.md"));
    const loaded = loadSkillFolder(directory, { source: "md" });
    expect(loaded.skill).toBeUndefined();
    expect(loaded.diagnostics.map((item) => item.code)).toEqual(["missing_skill_file"]);
  });

  it("empty front matter: lenient takes the folder name but still needs a description", () => {
    const loaded = loadSkillFolder(skillFolder("bare", "---\n---\nBody.\n"), { source: "md" });
    expect(loaded.skill).toBeUndefined();
    expect(loaded.diagnostics.map((item) => [item.code, item.severity])).toEqual([
      ["missing_name", "warning"],
      ["missing_description", "error"],
    ]);
  });

  it("empty front matter with a description: lenient loads under the folder name, strict refuses", () => {
    const text = skillText("description: Does things.");
    const lenient = loadSkillFolder(skillFolder("folder-name", text), { source: "md" });
    expect(lenient.skill?.name).toBe("folder-name");
    expect(lenient.diagnostics.map((item) => [item.code, item.severity])).toEqual([
      ["missing_name", "warning"],
    ]);
    const strict = loadSkillFolder(skillFolder("folder-name", text), { source: "md", mode: "strict" });
    expect(strict.skill).toBeUndefined();
    expect(strict.diagnostics.map((item) => [item.code, item.severity])).toEqual([["missing_name", "error"]]);
  });

  it("BOM and CRLF files load like LF files", () => {
    const text = "\ufeff---\r\nname: crlf\r\ndescription: Windows line ends.\r\n---\r\n\r\nBody line.\r\n";
    const loaded = loadSkillFolder(skillFolder("crlf", text), { source: "md" });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.description).toBe("Windows line ends.");
    expect(loaded.skill?.text()).toBe("Body line.\n");
  });

  it("a governance problem loads the skill but marks it", () => {
    const text = skillText("name: gov\ndescription: d\nmetadata:\n  skillgate.tier: reckless");
    const loaded = loadSkillFolder(skillFolder("gov", text), { source: "md" });
    expect(loaded.skill?.name).toBe("gov");
    expect(loaded.governanceInvalid).toBe(true);
    expect(hasErrors(loaded.diagnostics)).toBe(true);
    expect(loaded.skill?.governance.tier).toBe("change");
  });
});
