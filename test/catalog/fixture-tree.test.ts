import { readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SkillDiscovery } from "../../src/catalog/discover.js";
import { describeSkillIndex } from "../../src/catalog/skill-index.js";
import { isolatedFolders, makeTree } from "../helpers/skill-tree.js";

/**
 * The checked-in tree test/fixtures/catalog/mixed-project: one folder per outcome. The
 * decision table below is the contract for it; discovery only reads the tree.
 */

const project = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "catalog", "mixed-project");

function discoverFixture() {
  return new SkillDiscovery().discover({
    folders: isolatedFolders(makeTree()),
    roots: [project],
    builtins: false,
  });
}

describe("the mixed-project fixture tree", () => {
  it("gives the documented decision for every SKILL.md", () => {
    const result = discoverFixture();
    const table = result.decisions.map((decision) => [
      relative(project, decision.location),
      decision.name,
      decision.decision,
      decision.reasons.map((reason) => reason.code).join(","),
    ]);
    expect(table).toEqual([
      [".skillgate/skills/only-here/SKILL.md", "only-here", "registered", ""],
      [".skillgate/skills/valid-skill/SKILL.md", "valid-skill", "shadowed", "shadowed_by"],
      [".agents/skills/.curated/curated-skill/SKILL.md", "curated-skill", "registered", ""],
      [".agents/skills/.system/system-skill/SKILL.md", "system-skill", "registered", ""],
      [".agents/skills/bad-governance/SKILL.md", "bad-governance", "display_only", "invalid_governance"],
      [".agents/skills/duplicate-key/SKILL.md", "duplicate-key", "rejected", "invalid_front_matter"],
      [".agents/skills/group/nested-skill/SKILL.md", "nested-skill", "registered", ""],
      [
        ".agents/skills/missing-description/SKILL.md",
        "missing-description",
        "rejected",
        "missing_description",
      ],
      [".agents/skills/name-mismatch/SKILL.md", "other-name", "registered", "name_mismatch"],
      [".agents/skills/plain/SKILL.md", "plain", "registered", ""],
      [".agents/skills/valid-skill/SKILL.md", "valid-skill", "registered", ""],
    ]);
    expect(result.diagnostics).toEqual([]);
  });

  it("gives exactly one decision per SKILL.md, hidden folders included", () => {
    const files = (readdirSync(project, { recursive: true }) as string[])
      .filter((path) => path.endsWith("SKILL.md"))
      .map((path) => join(project, path))
      .sort();
    const result = discoverFixture();
    expect(result.decisions.map((decision) => decision.location).sort()).toEqual(files);
  });

  it("offers the registered skills only, and the index lists exactly those", () => {
    const result = discoverFixture();
    expect(result.skills.map((skill) => skill.name)).toEqual([
      "curated-skill",
      "nested-skill",
      "only-here",
      "other-name",
      "plain",
      "system-skill",
      "valid-skill",
    ]);
    expect(describeSkillIndex(result.skills).listed).toEqual(result.skills.map((skill) => skill.name));
  });

  it("reports each folder searched and what it found", () => {
    const result = discoverFixture();
    expect(
      result.sources
        .filter((source) => source.kind === "project")
        .map((source) => [relative(project, source.folder), source.exists, source.found]),
    ).toEqual([
      [".skillgate/skills", true, 2],
      [".agents/skills", true, 9],
    ]);
  });
});
