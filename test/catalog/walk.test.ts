import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillDiscovery } from "../../src/catalog/discover.js";
import { NOTHING_LEFT_OUT } from "../../src/catalog/not-searched.js";
import { DEFAULT_WALK_LIMITS, isInside, type WalkLimits, walkSkillsRoot } from "../../src/catalog/walk.js";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { MAX_DISCOVERY_DEPTH } from "../../src/core/limits.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** The probe discovery uses, reduced to "holds a SKILL.md". */
const hasSkillFile = (directory: string) => existsSync(join(directory, "SKILL.md"));

function walk(root: string, limits: Partial<WalkLimits> = {}, allowed: readonly string[] = [root]) {
  return walkSkillsRoot(root, allowed, hasSkillFile, { ...DEFAULT_WALK_LIMITS, ...limits });
}

const relative = (root: string, directories: readonly { directory: string }[]) =>
  directories.map((candidate) => candidate.directory.slice(root.length + 1));

describe("walkSkillsRoot", () => {
  it("a missing root does not exist and yields nothing; an empty one exists", () => {
    const tree = makeTree();
    expect(walk(join(tree, "missing"))).toEqual({
      exists: false,
      candidates: [],
      diagnostics: [],
      notSearched: NOTHING_LEFT_OUT,
    });
    expect(walk(tree)).toEqual({
      exists: true,
      candidates: [],
      diagnostics: [],
      notSearched: NOTHING_LEFT_OUT,
    });
  });

  it("a root that is a file does not exist as a skills folder", () => {
    const tree = makeTree();
    writeFileSync(join(tree, "file"), "x");
    expect(walk(join(tree, "file")).exists).toBe(false);
  });

  it("finds skills in name order and does not search inside a skill", () => {
    const tree = makeTree();
    writeSkill(tree, "b-skill", { files: { "inner/SKILL.md": "---\nname: inner\ndescription: d\n---\n" } });
    writeSkill(tree, "a-skill");
    writeSkill(tree, "group/c-skill");
    mkdirSync(join(tree, "empty-folder"));
    expect(relative(tree, walk(tree).candidates)).toEqual(["a-skill", "b-skill", "group/c-skill"]);
  });

  it("searches hidden folders and skips .git, .hg, .svn and node_modules, counting each", () => {
    const tree = makeTree();
    writeSkill(tree, ".git/in-git");
    writeSkill(tree, ".hg/in-hg");
    writeSkill(tree, ".svn/in-svn");
    writeSkill(tree, "node_modules/in-modules");
    writeSkill(tree, ".curated/curated-one");
    writeSkill(tree, ".system/skill-creator");
    writeSkill(tree, ".staging-1234");
    writeSkill(tree, "group/node_modules/deep-modules");
    writeSkill(tree, "group/.git/deep-git");
    writeSkill(tree, "visible");
    // A worktree's .git is a file: not a folder, not counted.
    writeFileSync(join(tree, "group", ".git-file"), "x");
    mkdirSync(join(tree, "other"));
    writeFileSync(join(tree, "other", ".git"), "gitdir: elsewhere\n");
    const result = walk(tree);
    expect(relative(tree, result.candidates)).toEqual([
      ".curated/curated-one",
      ".staging-1234",
      ".system/skill-creator",
      "visible",
    ]);
    expect(result.notSearched).toEqual({
      skippedFolders: { ".git": 2, ".hg": 1, ".svn": 1, node_modules: 2 },
      belowDepthLimit: 0,
      overSkillLimit: 0,
      overFolderLimit: 0,
    });
    expect(result.diagnostics).toEqual([]);
  });

  it("skips a source's own folders at its top only", () => {
    const tree = makeTree();
    writeSkill(tree, ".staging/123-abc");
    writeSkill(tree, ".trash/old-1");
    writeSkill(tree, "group/.staging/deep");
    writeSkill(tree, "kept");
    const result = walkSkillsRoot(
      tree,
      [tree],
      hasSkillFile,
      DEFAULT_WALK_LIMITS,
      new Set([".staging", ".trash"]),
    );
    expect(relative(tree, result.candidates)).toEqual(["group/.staging/deep", "kept"]);
    expect(result.notSearched.skippedFolders).toEqual({ ".staging": 1, ".trash": 1 });
  });

  it("searches down to the depth cap and no further", () => {
    const tree = makeTree();
    const atCap = `${"d/".repeat(MAX_DISCOVERY_DEPTH - 1)}at-cap`;
    const belowCap = `${"e/".repeat(MAX_DISCOVERY_DEPTH)}below-cap`;
    writeSkill(tree, atCap);
    writeSkill(tree, belowCap);
    const result = walk(tree);
    expect(relative(tree, result.candidates)).toEqual([atCap]);
    // e/ at the last level is not a skill and is not listed: one folder left out, and said so.
    expect(result.notSearched.belowDepthLimit).toBe(1);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: "limit_exceeded", severity: "warning", path: tree }),
    ]);
    expect(result.diagnostics[0]?.message).toContain(`1 folder(s) ${MAX_DISCOVERY_DEPTH} levels below`);
    expect(relative(tree, walk(tree, { maxDepth: 2 }).candidates)).toEqual([]);
    writeSkill(tree, "x/two-deep");
    expect(relative(tree, walk(tree, { maxDepth: 2 }).candidates)).toEqual(["x/two-deep"]);
    expect(relative(tree, walk(tree, { maxDepth: 1 }).candidates)).toEqual([]);
  });

  it("a root that itself holds SKILL.md is the one skill", () => {
    const tree = makeTree();
    const solo = writeSkill(tree, "solo", {
      files: { "sub/SKILL.md": "---\nname: sub\ndescription: d\n---\n" },
    });
    expect(walk(solo)).toEqual({
      exists: true,
      candidates: [{ directory: solo }],
      diagnostics: [],
      notSearched: NOTHING_LEFT_OUT,
    });
  });

  it("stops with limit_exceeded past the folder cap", () => {
    const tree = makeTree();
    for (let index = 0; index < 5; index += 1) writeSkill(tree, `skill-${index}`);
    const result = walk(tree, { maxFolders: 3 });
    expect(relative(tree, result.candidates)).toEqual(["skill-0", "skill-1", "skill-2"]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: "limit_exceeded", severity: "error", path: tree }),
    ]);
    expect(result.diagnostics[0]?.message).toContain("3 folders");
    expect(result.diagnostics[0]?.message).toContain("at least 2 more were not searched");
    expect(result.notSearched.overFolderLimit).toBe(2);
  });

  it("stops with limit_exceeded past the skill cap", () => {
    const tree = makeTree();
    for (let index = 0; index < 5; index += 1) writeSkill(tree, `skill-${index}`);
    const result = walk(tree, { maxSkills: 2 });
    expect(relative(tree, result.candidates)).toEqual(["skill-0", "skill-1"]);
    expect(result.diagnostics.map((item) => item.code)).toEqual(["limit_exceeded"]);
    expect(result.diagnostics[0]?.message).toContain("2 skills");
    expect(result.diagnostics[0]?.message).toContain("3 more were not loaded");
    expect(result.diagnostics[0]?.hint).toContain("discovery.max_skills_per_root");
    expect(result.notSearched.overSkillLimit).toBe(3);
  });

  it("counts the skills past the cap in nested folders too, without loading them", () => {
    const tree = makeTree();
    writeSkill(tree, "a-first");
    writeSkill(tree, "b-group/one");
    writeSkill(tree, "b-group/deeper/two");
    mkdirSync(join(tree, "c-empty"));
    const probed: string[] = [];
    const result = walkSkillsRoot(
      tree,
      [tree],
      (directory) => {
        probed.push(directory);
        return hasSkillFile(directory);
      },
      { ...DEFAULT_WALK_LIMITS, maxSkills: 1 },
    );
    expect(relative(tree, result.candidates)).toEqual(["a-first"]);
    expect(result.notSearched.overSkillLimit).toBe(2);
    // The probe (which reads SKILL.md) stops at the first skill past the cap: after it, only
    // a name is looked up (b-group/one and c-empty are never probed).
    expect(
      relative(
        tree,
        probed.map((directory) => ({ directory })),
      ),
    ).toEqual(["a-first", "b-group", "b-group/deeper", "b-group/deeper/two"]);
  });

  it("exactly as many skills as the cap is not over it, whatever other folders hold", () => {
    const tree = makeTree();
    writeSkill(tree, "a");
    writeSkill(tree, "b");
    mkdirSync(join(tree, "c-not-a-skill"));
    mkdirSync(join(tree, "d-not-a-skill"));
    const result = walk(tree, { maxSkills: 2 });
    expect(relative(tree, result.candidates)).toEqual(["a", "b"]);
    expect(result.diagnostics).toEqual([]);
  });

  it("follows a symlinked folder whose real path stays inside an allowed root", () => {
    const tree = makeTree();
    writeSkill(tree, "node_modules/kept");
    symlinkSync(join(tree, "node_modules", "kept"), join(tree, "kept"));
    const result = walk(tree);
    expect(result.candidates).toEqual([{ directory: join(tree, "kept") }]);
  });

  it("follows a symlinked folder into another allowed root", () => {
    const tree = makeTree();
    const root = join(tree, "root");
    const other = join(tree, "other");
    writeSkill(other, "group/shared");
    mkdirSync(root);
    symlinkSync(join(other, "group"), join(root, "linked-group"));
    expect(relative(root, walk(root, {}, [root, other]).candidates)).toEqual(["linked-group/shared"]);
    // With only its own root allowed the same link escapes.
    expect(walk(root, {}, [root]).candidates).toEqual([
      { directory: join(root, "linked-group"), escaped: { realPath: join(other, "group") } },
    ]);
  });

  it("reports a symlinked folder that escapes every allowed root, and does not follow it", () => {
    const tree = makeTree();
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeSkill(elsewhere, "group/secret");
    symlinkSync(elsewhere, join(tree, "escape"));
    symlinkSync("/", join(tree, "to-root"));
    const result = walk(tree);
    expect(result.candidates).toEqual([
      { directory: join(tree, "escape"), escaped: { realPath: elsewhere } },
      { directory: join(tree, "to-root"), escaped: { realPath: "/" } },
    ]);
  });

  it("ignores broken links and links to files", () => {
    const tree = makeTree();
    writeFileSync(join(tree, "file.txt"), "x");
    symlinkSync(join(tree, "file.txt"), join(tree, "file-link"));
    symlinkSync(join(tree, "nowhere"), join(tree, "broken"));
    writeSkill(tree, "real");
    expect(relative(tree, walk(tree).candidates)).toEqual(["real"]);
  });

  it("a link back to the root or a parent does not loop or list a skill twice", () => {
    const tree = makeTree();
    writeSkill(tree, "a-skill");
    writeSkill(tree, "group/b-skill");
    symlinkSync(tree, join(tree, "loop-root"));
    symlinkSync(join(tree, "group"), join(tree, "group", "loop-up"));
    const result = walk(tree);
    expect(relative(tree, result.candidates)).toEqual(["a-skill", "group/b-skill"]);
    expect(result.diagnostics).toEqual([]);
  });

  it("a link to a sibling skill folder counts the skill once", () => {
    const tree = makeTree();
    writeSkill(tree, "real-skill");
    symlinkSync(join(tree, "real-skill"), join(tree, "z-link"));
    expect(relative(tree, walk(tree).candidates)).toEqual(["real-skill"]);
  });
});

describe("isInside", () => {
  it("compares whole path segments", () => {
    expect(isInside("/a/b", ["/a"])).toBe(true);
    expect(isInside("/a", ["/a"])).toBe(true);
    expect(isInside("/ab", ["/a"])).toBe(false);
    expect(isInside("/a/b", ["/a/"])).toBe(true);
    expect(isInside("/x", ["/a", "/b"])).toBe(false);
    expect(isInside("/anything", ["/"])).toBe(true);
  });
});

describe("walk limits and skipping through discovery", () => {
  it("passes small limits through and reports limit_exceeded as a discovery diagnostic", () => {
    const tree = makeTree();
    const skills = join(tree, "project", ".agents", "skills");
    for (let index = 0; index < 4; index += 1) writeSkill(skills, `skill-${index}`);
    const result = new SkillDiscovery().discover({
      folders: isolatedFolders(tree),
      roots: [join(tree, "project")],
      builtins: false,
      limits: { maxDepth: 6, maxFolders: 100, maxSkills: 3 },
    });
    expect(result.skills.map((skill) => skill.name)).toEqual(["skill-0", "skill-1", "skill-2"]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: "limit_exceeded", path: skills, severity: "error" }),
    ]);
  });

  it("a configured user folder that is itself a skill is one skill", () => {
    const tree = makeTree();
    const solo = writeSkill(tree, "elsewhere/solo");
    const result = new SkillDiscovery().discover({
      folders: isolatedFolders(tree),
      config: { ...DEFAULT_CONFIG, skills: { ...DEFAULT_CONFIG.skills, userFolders: [solo] } },
      roots: [],
      builtins: false,
    });
    expect(result.decisions.map((decision) => [decision.name, decision.source, decision.decision])).toEqual([
      ["solo", "user", "registered"],
    ]);
  });
});
