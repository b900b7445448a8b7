import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandHome, type SkillFolderSource, skillFolderSources } from "../../src/catalog/sources.js";
import { DEFAULT_CONFIG, type SkillgateConfig } from "../../src/config/config.js";
import { builtinSkillsFolder } from "../../src/core/package-root.js";

const folders = { config: "/cfg", data: "/data", home: "/home/k" };

function withSkills(skills: Partial<SkillgateConfig["skills"]>): SkillgateConfig {
  return { ...DEFAULT_CONFIG, skills: { ...DEFAULT_CONFIG.skills, ...skills } };
}

const packageSource = (name: string): SkillFolderSource => ({
  kind: "package",
  source: `package:${name}`,
  folder: `/proj/node_modules/${name}/skills`,
  reason: `published by npm package ${name}`,
});

describe("skillFolderSources (in increasing precedence, docs/skills.md: Where skills come from)", () => {
  it("learned, config, the user's ~/.agents/skills, then .skillgate/skills and .agents/skills per root", () => {
    const sources = skillFolderSources({
      folders,
      config: DEFAULT_CONFIG,
      roots: ["/proj"],
      builtins: false,
    });
    expect(sources.map((source) => source.folder)).toEqual([
      "/data/learned/skills",
      "/cfg/skills",
      "/home/k/.agents/skills",
      "/proj/.skillgate/skills",
      "/proj/.agents/skills",
    ]);
    expect(sources.map((source) => source.source)).toEqual([
      "learned",
      "config",
      "user",
      "project",
      "project",
    ]);
  });

  it("the first folder is learned and the last the project's .agents/skills", () => {
    const sources = skillFolderSources({
      folders,
      config: DEFAULT_CONFIG,
      roots: ["/proj"],
      builtins: false,
    });
    expect(sources[0]?.folder).toBe("/data/learned/skills");
    expect(sources.at(-1)?.folder).toBe("/proj/.agents/skills");
  });

  it("the full order: builtin, packages, learned, store, config, user, configured user folders, then per root", () => {
    const config = withSkills({
      userFolders: ["~/.claude/skills", "/opt/team-skills"],
      projectFolders: [".claude/skills", "/abs/project-skills"],
    });
    const sources = skillFolderSources({
      folders,
      config,
      roots: ["/proj", "/other"],
      packageFolders: [packageSource("pkg-a"), packageSource("pkg-b")],
      store: { folder: "/data/store/skills", enabledNames: () => new Set() },
    });
    expect(sources.map((source) => [source.source, source.folder])).toEqual([
      ["builtin", builtinSkillsFolder()],
      ["package:pkg-a", "/proj/node_modules/pkg-a/skills"],
      ["package:pkg-b", "/proj/node_modules/pkg-b/skills"],
      ["learned", "/data/learned/skills"],
      ["store", "/data/store/skills"],
      ["config", "/cfg/skills"],
      ["user", "/home/k/.agents/skills"],
      ["user", "/home/k/.claude/skills"],
      ["user", "/opt/team-skills"],
      ["project", "/proj/.skillgate/skills"],
      ["project", "/proj/.agents/skills"],
      ["project", "/proj/.claude/skills"],
      ["project", "/abs/project-skills"],
      ["project", "/other/.skillgate/skills"],
      ["project", "/other/.agents/skills"],
      ["project", "/other/.claude/skills"],
      ["project", "/abs/project-skills"],
    ]);
    expect(sources.map((source) => source.kind)).toEqual([
      "builtin",
      "package",
      "package",
      "learned",
      "store",
      "config",
      "user",
      "user",
      "user",
      "project",
      "project",
      "project",
      "project",
      "project",
      "project",
      "project",
      "project",
    ]);
  });

  it("includes the built-ins first unless told not to", () => {
    const on = skillFolderSources({ folders, config: DEFAULT_CONFIG, roots: [] });
    expect(on[0]).toMatchObject({ kind: "builtin", source: "builtin", folder: builtinSkillsFolder() });
    const off = skillFolderSources({ folders, config: DEFAULT_CONFIG, roots: [], builtins: false });
    expect(off.some((source) => source.kind === "builtin")).toBe(false);
  });

  it("resolves relative project roots and says why each folder is searched", () => {
    const sources = skillFolderSources({ folders, config: DEFAULT_CONFIG, roots: ["rel"], builtins: false });
    const project = sources.filter((source) => source.kind === "project");
    expect(project.map((source) => source.folder)).toEqual([
      join(process.cwd(), "rel", ".skillgate", "skills"),
      join(process.cwd(), "rel", ".agents", "skills"),
    ]);
    for (const source of sources) expect(source.reason.length).toBeGreaterThan(0);
  });
});

describe("expandHome", () => {
  it("expands ~ and ~/ and resolves everything else", () => {
    expect(expandHome("~", "/home/k")).toBe("/home/k");
    expect(expandHome("~/x/y", "/home/k")).toBe("/home/k/x/y");
    expect(expandHome("/abs", "/home/k")).toBe("/abs");
    expect(expandHome("~other/x", "/home/k")).toBe(join(process.cwd(), "~other/x"));
  });
});
