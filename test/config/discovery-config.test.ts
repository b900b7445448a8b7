import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { CONFIG_FILE, DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";
import { problemsOf } from "./config-problems.js";

describe("the discovery section of config.yaml", () => {
  it("reads the three caps", () => {
    const config = parseConfig(
      "discovery:\n  max_skills_per_root: 100000\n  max_folders_per_root: 300000\n  max_depth: 8\n",
      "f",
    );
    expect(config.discovery).toEqual({ maxSkillsPerRoot: 100_000, maxFoldersPerRoot: 300_000, maxDepth: 8 });
  });

  it("a raised skills cap alone raises the folder cap with it (every skill is a folder)", () => {
    expect(parseConfig("discovery:\n  max_skills_per_root: 100000\n", "f").discovery).toEqual({
      maxSkillsPerRoot: 100_000,
      maxFoldersPerRoot: 200_000,
      maxDepth: 6,
    });
    // A lower skills cap leaves the default folder cap.
    expect(parseConfig("discovery:\n  max_skills_per_root: 10\n", "f").discovery.maxFoldersPerRoot).toBe(
      50_000,
    );
    expect(parseConfig("discovery: {}\n", "f").discovery).toEqual(DEFAULT_CONFIG.discovery);
  });

  it.each([
    [
      "a skills cap of 0",
      "max_skills_per_root: 0",
      '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
    ],
    [
      "a negative skills cap",
      "max_skills_per_root: -1",
      '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
    ],
    [
      "a fractional skills cap",
      "max_skills_per_root: 2.5",
      '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
    ],
    [
      "a skills cap as text",
      "max_skills_per_root: '100000'",
      '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
    ],
    [
      "an unbounded skills cap",
      "max_skills_per_root: .inf",
      '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
    ],
    [
      "a skills cap over the bound",
      "max_skills_per_root: 1000001",
      '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
    ],
    [
      "a folder cap of 0",
      "max_folders_per_root: 0",
      '"discovery.max_folders_per_root" must be a whole number from 1 to 5000000',
    ],
    [
      "a folder cap below the skills cap",
      "max_skills_per_root: 1000\n  max_folders_per_root: 999",
      '"discovery.max_folders_per_root" (999) must be at least "discovery.max_skills_per_root" (1000): every skill is a folder',
    ],
    ["a depth of 0", "max_depth: 0", '"discovery.max_depth" must be a whole number from 1 to 32'],
    ["a depth of 33", "max_depth: 33", '"discovery.max_depth" must be a whole number from 1 to 32'],
    ["an unknown key", "max_skills: 5", 'unknown key "discovery.max_skills"'],
  ])("%s is invalid_config", (_label, line, problem) => {
    expect(problemsOf(`discovery:\n  ${line}\n`)).toContain(problem);
  });

  it("discovery as a list is invalid_config", () => {
    expect(problemsOf("discovery: [1]\n")).toContain('"discovery" must be a mapping');
  });

  it("the catalog walks with the configured cap, and a refused file writes nothing", () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const skills = join(folders.home, ".agents", "skills");
    for (let index = 0; index < 5; index += 1) writeSkill(skills, `skill-${index}`);
    mkdirSync(folders.config, { recursive: true });
    writeFileSync(join(folders.config, CONFIG_FILE), "discovery:\n  max_skills_per_root: 3\n");
    const capped = createCatalog({ ...folders, builtins: false }).discover();
    expect(capped.skills.map((skill) => skill.name)).toEqual(["skill-0", "skill-1", "skill-2"]);
    expect(capped.sources.find((source) => source.folder === skills)?.notSearched.overSkillLimit).toBe(2);
    writeFileSync(join(folders.config, CONFIG_FILE), "discovery:\n  max_skills_per_root: 0\n");
    const before = readdirSync(tree, { recursive: true }).sort();
    expect(() => createCatalog({ ...folders, builtins: false })).toThrow(/max_skills_per_root/);
    expect(readdirSync(tree, { recursive: true }).sort()).toEqual(before);
  });
});
