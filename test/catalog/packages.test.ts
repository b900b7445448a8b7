import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type DiscoveryResult, SkillDiscovery } from "../../src/catalog/discover.js";
import { packageSkillSources } from "../../src/catalog/packages.js";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** Writes `node_modules/<name>/package.json` under `base` and returns the package folder. */
function writePackage(base: string, name: string, manifest: Record<string, unknown>): string {
  const folder = join(base, "node_modules", name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name, version: "1.0.0", ...manifest }));
  return folder;
}

/** A fake project with pkg-a (a folder of skills), @scope/pkg-b (one skill) and a package without skills. */
function fakeProject(): { tree: string; project: string } {
  const tree = makeTree();
  const project = join(tree, "project");
  const a = writePackage(project, "pkg-a", { skills: ["skills"] });
  writeSkill(join(a, "skills"), "a-one");
  writeSkill(join(a, "skills"), "a-two");
  const b = writePackage(project, "@scope/pkg-b", { skills: "one-skill" });
  writeSkill(b, "one-skill");
  writePackage(project, "no-skills", {});
  return { tree, project };
}

function discover(
  tree: string,
  roots: string[],
  options: { packages?: string[]; configPackages?: string[] } = {},
) {
  return new SkillDiscovery().discover({
    folders: isolatedFolders(tree),
    config: {
      ...DEFAULT_CONFIG,
      skills: { ...DEFAULT_CONFIG.skills, packages: options.configPackages ?? [] },
    },
    roots,
    builtins: false,
    ...(options.packages ? { packages: options.packages } : {}),
  });
}

const sourceOf = (result: DiscoveryResult) =>
  result.skills.map((skill) => [skill.name, skill.source] as const);

describe("npm packages that publish skills", () => {
  it("finds a folder of skills and a single skill in the project's node_modules, scoped or not", () => {
    const { tree, project } = fakeProject();
    const result = discover(tree, [project]);
    expect(sourceOf(result)).toEqual([
      ["a-one", "package:pkg-a"],
      ["a-two", "package:pkg-a"],
      ["one-skill", "package:@scope/pkg-b"],
    ]);
    expect(result.diagnostics).toEqual([]);
    const reported = result.sources.filter((source) => source.kind === "package");
    expect(reported.map((source) => [source.source, source.found])).toEqual([
      ["package:@scope/pkg-b", 1],
      ["package:pkg-a", 2],
    ]);
  });

  it("package skills rank after built-ins and before learned skills", () => {
    const { tree, project } = fakeProject();
    writeSkill(join(isolatedFolders(tree).data, "learned", "skills"), "a-one", {
      frontMatter: { name: "a-one", description: "Learned." },
    });
    const result = discover(tree, [project]);
    expect(
      result.decisions
        .filter((decision) => decision.name === "a-one")
        .map((decision) => [decision.source, decision.decision]),
    ).toEqual([
      ["package:pkg-a", "shadowed"],
      ["learned", "registered"],
    ]);
  });

  it("a skills path that leaves the package is path_not_allowed", () => {
    const tree = makeTree();
    const project = join(tree, "project");
    writeSkill(join(project, "outside-skills"), "sneaky");
    writePackage(project, "escaper", { skills: ["../../outside-skills", "/etc"] });
    const result = discover(tree, [project]);
    expect(result.skills).toEqual([]);
    expect(result.diagnostics.map((item) => [item.code, item.severity])).toEqual([
      ["path_not_allowed", "error"],
      ["path_not_allowed", "error"],
    ]);
    expect(result.diagnostics[0]?.message).toContain("escaper");
  });

  it("a malformed skills field is invalid_field; a missing skills folder is a warning", () => {
    const tree = makeTree();
    const project = join(tree, "project");
    writePackage(project, "bad-field", { skills: { folder: "skills" } });
    writePackage(project, "bad-list", { skills: ["ok", 3] });
    writePackage(project, "no-folder", { skills: "missing" });
    mkdirSync(join(project, "node_modules", "broken-json"), { recursive: true });
    writeFileSync(join(project, "node_modules", "broken-json", "package.json"), "{ not json");
    const result = discover(tree, [project]);
    expect(result.diagnostics.map((item) => [item.code, item.severity]).sort()).toEqual([
      ["invalid_field", "error"],
      ["invalid_field", "error"],
      ["not_found", "warning"],
    ]);
  });

  it("a package named explicitly is found by walking up node_modules from a root", () => {
    const tree = makeTree();
    const workspace = join(tree, "workspace");
    const root = join(workspace, "apps", "web");
    mkdirSync(root, { recursive: true });
    const folder = writePackage(workspace, "team-skills", { skills: "skills" });
    writeSkill(join(folder, "skills"), "house-style");
    // Not in the root's own node_modules, so not found without naming it.
    expect(discover(tree, [root]).skills).toEqual([]);
    expect(sourceOf(discover(tree, [root], { packages: ["team-skills"] }))).toEqual([
      ["house-style", "package:team-skills"],
    ]);
    expect(sourceOf(discover(tree, [root], { configPackages: ["team-skills"] }))).toEqual([
      ["house-style", "package:team-skills"],
    ]);
  });

  it("a package named twice, or both installed and named, counts once", () => {
    const { tree, project } = fakeProject();
    const result = discover(tree, [project], { packages: ["pkg-a"], configPackages: ["pkg-a"] });
    expect(sourceOf(result).filter(([, source]) => source === "package:pkg-a")).toHaveLength(2);
    expect(result.decisions.filter((decision) => decision.source === "package:pkg-a")).toHaveLength(2);
  });

  it("a named package that is not installed is a warning saying how to install it", () => {
    const tree = makeTree();
    const result = discover(tree, [join(tree, "project")], { packages: ["skillgate-test-not-installed"] });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "not_found",
        severity: "warning",
        hint: "npm install skillgate-test-not-installed",
      }),
    ]);
    expect(result.diagnostics[0]?.message).toContain("skillgate-test-not-installed");
  });

  it("notices a package added to an existing scope folder and one added at the top", () => {
    const { tree, project } = fakeProject();
    expect(discover(tree, [project]).skills).toHaveLength(3);
    const c = writePackage(project, "@scope/pkg-c", { skills: "skill-c" });
    writeSkill(c, "skill-c");
    expect(sourceOf(discover(tree, [project]))).toContainEqual(["skill-c", "package:@scope/pkg-c"]);
    const d = writePackage(project, "pkg-d", { skills: "skill-d" });
    writeSkill(d, "skill-d");
    expect(sourceOf(discover(tree, [project]))).toContainEqual(["skill-d", "package:pkg-d"]);
  });
});

describe("packageSkillSources", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("names each folder's source after the package and says why it is searched", () => {
    const { project } = fakeProject();
    const result = packageSkillSources([project], [], []);
    expect(result.sources.map((source) => [source.kind, source.source, source.reason])).toEqual([
      ["package", "package:@scope/pkg-b", "published by npm package @scope/pkg-b"],
      ["package", "package:pkg-a", "published by npm package pkg-a"],
    ]);
  });

  it("reuses what an unchanged package.json said, and reads an edited one again", () => {
    const { project } = fakeProject();
    vi.useFakeTimers({ toFake: ["Date"] });
    // Past the racy window: the files' stamps can be trusted.
    vi.setSystemTime(Date.now() + 10_000);
    const first = packageSkillSources([project], [], []);
    const second = packageSkillSources([project], [], []);
    expect(second.sources).toHaveLength(2);
    second.sources.forEach((source, index) => {
      expect(source).toBe(first.sources[index]);
    });
    const a = join(project, "node_modules", "pkg-a");
    writeSkill(join(a, "more"), "a-three");
    writeFileSync(join(a, "package.json"), JSON.stringify({ name: "pkg-a", skills: ["skills", "more"] }));
    vi.setSystemTime(Date.now() + 10_000);
    expect(packageSkillSources([project], [], []).sources.map((source) => source.folder)).toEqual([
      expect.stringMatching(/pkg-b\/one-skill$/),
      expect.stringMatching(/pkg-a\/skills$/),
      expect.stringMatching(/pkg-a\/more$/),
    ]);
  });

  it("finds a declared skills folder created after it was reported missing, with package.json unchanged", () => {
    const tree = makeTree();
    const project = join(tree, "project");
    const folder = writePackage(project, "pkg-late", { skills: "skills" });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 10_000);
    expect(packageSkillSources([project], [], []).diagnostics).toEqual([
      expect.objectContaining({ code: "not_found" }),
    ]);
    writeSkill(join(folder, "skills"), "late");
    const later = packageSkillSources([project], [], []);
    expect(later.diagnostics).toEqual([]);
    expect(later.sources.map((source) => source.source)).toEqual(["package:pkg-late"]);
  });

  it("follows a linked package (as pnpm installs them) to a new version when the link is pointed elsewhere", () => {
    const tree = makeTree();
    const project = join(tree, "project");
    mkdirSync(join(project, "node_modules"), { recursive: true });
    const store = join(tree, "store");
    for (const version of ["1", "2"]) {
      const folder = join(store, `linked@${version}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, "package.json"),
        JSON.stringify({ name: "linked", skills: `skills-v${version}` }),
      );
      writeSkill(join(folder, `skills-v${version}`), `from-v${version}`);
    }
    const link = join(project, "node_modules", "linked");
    symlinkSync(join(store, "linked@1"), link, "dir");
    expect(packageSkillSources([project], [], []).sources.map((source) => source.folder)).toEqual([
      join(store, "linked@1", "skills-v1"),
    ]);
    rmSync(link);
    symlinkSync(join(store, "linked@2"), link, "dir");
    expect(packageSkillSources([project], [], []).sources.map((source) => source.folder)).toEqual([
      join(store, "linked@2", "skills-v2"),
    ]);
  });
});
