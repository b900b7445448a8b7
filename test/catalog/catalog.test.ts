import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { discoverSkills } from "../../src/catalog/discover.js";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { Skill } from "../../src/skill/skill.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

function setup() {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const project = join(tree, "project");
  writeSkill(join(project, ".agents", "skills"), "alpha");
  writeSkill(join(folders.home, ".agents", "skills"), "beta");
  return { tree, folders, project };
}

describe("createCatalog", () => {
  it("binds folders, configuration and roots, and discovers from them", () => {
    const { folders, project } = setup();
    const catalog = createCatalog({ ...folders, roots: [project], builtins: false });
    expect(catalog.folders).toEqual(folders);
    expect(catalog.config).toBe(DEFAULT_CONFIG);
    expect(catalog.roots).toEqual([project]);
    const result = catalog.discover();
    expect(result.skills.map((skill) => [skill.name, skill.source])).toEqual([
      ["alpha", "project"],
      ["beta", "user"],
    ]);
    expect(catalog.folderSources().map((source) => source.folder)).toEqual(
      result.sources.map((source) => source.folder),
    );
  });

  it("reads config.yaml from the config folder", () => {
    const { folders, project } = setup();
    mkdirSync(folders.config, { recursive: true });
    writeFileSync(join(folders.config, "config.yaml"), "skills:\n  disabled: [beta]\n");
    const result = createCatalog({ ...folders, roots: [project], builtins: false }).discover();
    expect(result.skills.map((skill) => skill.name)).toEqual(["alpha"]);
  });

  it("a configuration passed in replaces the file", () => {
    const { folders, project } = setup();
    mkdirSync(folders.config, { recursive: true });
    writeFileSync(join(folders.config, "config.yaml"), "not: valid\n");
    const catalog = createCatalog({
      ...folders,
      roots: [project],
      builtins: false,
      configuration: { ...DEFAULT_CONFIG, skills: { ...DEFAULT_CONFIG.skills, hidden: ["alpha"] } },
    });
    expect(catalog.discover().skills.map((skill) => skill.name)).toEqual(["beta"]);
  });

  it("throws InvalidConfigError for a malformed configuration file", () => {
    const { folders } = setup();
    mkdirSync(folders.config, { recursive: true });
    writeFileSync(join(folders.config, "config.yaml"), "skills: 3\n");
    expect(() => createCatalog({ ...folders })).toThrow(InvalidConfigError);
  });

  it("passes skills from the caller through at the highest precedence", () => {
    const { folders, project } = setup();
    const catalog = createCatalog({
      ...folders,
      roots: [project],
      builtins: false,
      extra: [new Skill({ name: "alpha", source: "caller", description: "Mine." })],
    });
    expect(catalog.discover().skills.find((skill) => skill.name === "alpha")?.description).toBe("Mine.");
  });

  it("built-ins are included by default", () => {
    const { folders, project } = setup();
    const result = createCatalog({ ...folders, roots: [project] }).discover();
    expect(result.skills.some((skill) => skill.source === "builtin")).toBe(true);
  });
});

describe("discoverSkills", () => {
  it("uses one process-wide cache and still sees each call's own options", () => {
    const first = setup();
    const second = setup();
    const run = (setupResult: ReturnType<typeof setup>) =>
      discoverSkills({ folders: setupResult.folders, roots: [setupResult.project], builtins: false });
    expect(run(first).skills.map((skill) => skill.where)).toEqual([
      join(first.project, ".agents", "skills", "alpha", "SKILL.md"),
      join(first.folders.home, ".agents", "skills", "beta", "SKILL.md"),
    ]);
    expect(run(second).skills.map((skill) => skill.where)).toEqual([
      join(second.project, ".agents", "skills", "alpha", "SKILL.md"),
      join(second.folders.home, ".agents", "skills", "beta", "SKILL.md"),
    ]);
  });
});
