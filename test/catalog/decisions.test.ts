import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SkillDecision } from "../../src/catalog/decisions.js";
import { type DiscoveryOptions, type DiscoveryResult, SkillDiscovery } from "../../src/catalog/discover.js";
import { DEFAULT_CONFIG, type SkillgateConfig } from "../../src/config/config.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** A project tree with isolated config, data and home folders. */
function project(): { tree: string; folders: ReturnType<typeof isolatedFolders>; skills: string } {
  const tree = makeTree();
  return { tree, folders: isolatedFolders(tree), skills: join(tree, "project", ".agents", "skills") };
}

function discover(tree: string, options: Omit<DiscoveryOptions, "folders" | "roots"> = {}): DiscoveryResult {
  return new SkillDiscovery().discover({
    folders: isolatedFolders(tree),
    roots: [join(tree, "project")],
    builtins: false,
    ...options,
  });
}

function decisionOf(result: DiscoveryResult, name: string, source?: string): SkillDecision {
  const found = result.decisions.filter(
    (decision) => decision.name === name && (source === undefined || decision.source === source),
  );
  expect(found, `one decision for ${name}${source ? ` from ${source}` : ""}`).toHaveLength(1);
  return found[0] as SkillDecision;
}

function withSkills(skills: Partial<SkillgateConfig["skills"]>): SkillgateConfig {
  return { ...DEFAULT_CONFIG, skills: { ...DEFAULT_CONFIG.skills, ...skills } };
}

const codes = (decision: SkillDecision) => decision.reasons.map((reason) => reason.code);

describe("decisions: every skill found gets exactly one", () => {
  it("registers valid skills and rejects broken ones, one decision per SKILL.md", () => {
    const { tree, skills } = project();
    writeSkill(skills, "good");
    writeSkill(skills, "also-good");
    writeSkill(skills, "no-description", { frontMatter: { name: "no-description" } });
    writeSkill(skills, "bad-yaml", { frontMatter: "name: bad-yaml\ndescription: [unclosed\n" });
    writeSkill(skills, "nested/group/deep-one");
    const result = discover(tree);
    expect(result.decisions.map((decision) => decision.location).sort()).toEqual(
      ["also-good", "bad-yaml", "good", "nested/group/deep-one", "no-description"].map((path) =>
        join(skills, path, "SKILL.md"),
      ),
    );
    expect(result.skills.map((skill) => skill.name)).toEqual(["also-good", "deep-one", "good"]);
    for (const name of ["good", "also-good", "deep-one"]) {
      const decision = decisionOf(result, name);
      expect(decision.decision).toBe("registered");
      expect(decision.reasons).toEqual([]);
      expect(decision.skill?.name).toBe(name);
    }
  });

  it("missing_description rejects", () => {
    const { tree, skills } = project();
    writeSkill(skills, "no-description", { frontMatter: { name: "no-description" } });
    const decision = decisionOf(discover(tree), "no-description");
    expect(decision.decision).toBe("rejected");
    expect(codes(decision)).toEqual(["missing_description"]);
    expect(decision.skill).toBeUndefined();
  });

  it("invalid_front_matter rejects and keeps the specific diagnostic code", () => {
    const { tree, skills } = project();
    writeSkill(skills, "dup", { frontMatter: "name: dup\ndescription: one\ndescription: two\n" });
    writeSkill(skills, "open", { raw: "---\nname: open\ndescription: never closed\n" });
    writeSkill(skills, "listy", { frontMatter: "- name: listy\n- description: a list\n" });
    const result = discover(tree);
    for (const [name, diagnosticCode] of [
      ["dup", "duplicate_key"],
      ["open", "unterminated_front_matter"],
      ["listy", "front_matter_not_mapping"],
    ] as const) {
      const decision = decisionOf(result, name);
      expect(decision.decision, name).toBe("rejected");
      expect(codes(decision), name).toEqual(["invalid_front_matter"]);
      expect(
        decision.diagnostics.map((item) => item.code),
        name,
      ).toEqual([diagnosticCode]);
      expect(decision.location).toBe(join(skills, name, "SKILL.md"));
    }
  });

  it("name_mismatch is a warning and the skill is registered under its declared name", () => {
    const { tree, skills } = project();
    writeSkill(skills, "folder-name", { frontMatter: { name: "other-name", description: "Mismatched." } });
    const result = discover(tree);
    const decision = decisionOf(result, "other-name");
    expect(decision.decision).toBe("registered");
    expect(decision.reasons).toEqual([
      expect.objectContaining({ code: "name_mismatch", severity: "warning" }),
    ]);
    expect(result.skills.map((skill) => skill.name)).toEqual(["other-name"]);
  });

  it("invalid governance is display_only with invalid_governance", () => {
    const { tree, skills } = project();
    writeSkill(skills, "bad-tier", {
      frontMatter: { name: "bad-tier", description: "d", metadata: { "skillgate.tier": "root" } },
    });
    writeSkill(skills, "bad-schema", {
      frontMatter: {
        name: "bad-schema",
        description: "d",
        metadata: { parameters_schema: { type: "array" } },
      },
    });
    const result = discover(tree);
    for (const name of ["bad-tier", "bad-schema"]) {
      const decision = decisionOf(result, name);
      expect(decision.decision, name).toBe("display_only");
      expect(codes(decision), name).toContain("invalid_governance");
      expect(decision.skill?.name).toBe(name);
    }
    expect(result.skills).toEqual([]);
  });
});

describe("decisions: configuration", () => {
  it("disables and hides skills by name and by glob", () => {
    const { tree, skills } = project();
    for (const name of ["keep", "legacy-one", "legacy-two", "draft", "draft-notes"]) writeSkill(skills, name);
    const config = withSkills({ disabled: ["legacy-*"], hidden: ["draft"] });
    const result = discover(tree, { config });
    expect(result.skills.map((skill) => skill.name)).toEqual(["draft-notes", "keep"]);
    for (const name of ["legacy-one", "legacy-two"]) {
      const decision = decisionOf(result, name);
      expect(decision.decision).toBe("disabled");
      expect(decision.reasons).toEqual([
        expect.objectContaining({ code: "disabled_by_config", severity: "info" }),
      ]);
    }
    const draft = decisionOf(result, "draft");
    expect(draft.decision).toBe("display_only");
    expect(codes(draft)).toEqual(["hidden_by_config"]);
  });

  it("brace and character-class globs work (picomatch)", () => {
    const { tree, skills } = project();
    for (const name of ["a1", "a2", "b1", "c-x"]) writeSkill(skills, name);
    const result = discover(tree, { config: withSkills({ disabled: ["a[12]", "{b,c}*"] }) });
    expect(result.skills).toEqual([]);
    expect(result.decisions.map((decision) => decision.decision)).toEqual(Array(4).fill("disabled"));
  });

  it("a disabled name is disabled in every source, so no lower source takes its place", () => {
    const { tree, folders, skills } = project();
    writeSkill(skills, "off");
    writeSkill(join(folders.home, ".agents", "skills"), "off");
    const result = discover(tree, { config: withSkills({ disabled: ["off"] }) });
    expect(result.skills).toEqual([]);
    expect(result.decisions.map((decision) => [decision.source, decision.decision])).toEqual([
      ["user", "disabled"],
      ["project", "disabled"],
    ]);
  });
});

describe("decisions: shadowing follows precedence", () => {
  it("project > user > config > store > learned > package > builtin, each loser naming its winner", () => {
    const { tree, folders, skills } = project();
    const builtin = new SkillDiscovery()
      .discover({ folders, roots: [], builtins: true })
      .decisions.find((decision) => decision.source === "builtin" && decision.decision === "registered");
    expect(builtin, "skillgate ships at least one valid built-in skill").toBeDefined();
    const name = (builtin as SkillDecision).name;
    const packageFolder = join(tree, "project", "node_modules", "pkg-a");
    const places: Record<string, string> = {
      "package:pkg-a": join(packageFolder, "skills"),
      learned: join(folders.data, "learned", "skills"),
      store: join(tree, "store"),
      config: join(folders.config, "skills"),
      user: join(folders.home, ".agents", "skills"),
      project: skills,
    };
    for (const folder of Object.values(places)) writeSkill(folder, name);
    writeFileSync(join(packageFolder, "package.json"), JSON.stringify({ name: "pkg-a", skills: ["skills"] }));
    const result = discover(tree, {
      builtins: true,
      store: { folder: join(tree, "store"), enabledNames: () => new Set([name]) },
    });
    const chain = result.decisions.filter((decision) => decision.name === name);
    expect(chain.map((decision) => decision.source)).toEqual([
      "builtin",
      "package:pkg-a",
      "learned",
      "store",
      "config",
      "user",
      "project",
    ]);
    expect(chain.map((decision) => decision.decision)).toEqual([...Array(6).fill("shadowed"), "registered"]);
    for (let index = 0; index < chain.length - 1; index += 1) {
      const loser = chain[index] as SkillDecision;
      const winner = chain[index + 1] as SkillDecision;
      const reason = loser.reasons.find((item) => item.code === "shadowed_by");
      expect(reason?.winner, `${loser.source} names its winner`).toEqual({
        source: winner.source,
        location: winner.location,
      });
      expect(reason?.message).toContain(winner.location);
    }
    expect(chain.at(-1)?.location).toBe(join(skills, name, "SKILL.md"));
    expect(result.skills.find((skill) => skill.name === name)?.source).toBe("project");
  });

  it(".agents/skills outranks .skillgate/skills in the same root, and a later root outranks an earlier one", () => {
    const tree = makeTree();
    const first = join(tree, "first");
    const second = join(tree, "second");
    writeSkill(join(first, ".skillgate", "skills"), "same");
    writeSkill(join(first, ".agents", "skills"), "same");
    writeSkill(join(second, ".skillgate", "skills"), "same");
    const result = new SkillDiscovery().discover({
      folders: isolatedFolders(tree),
      roots: [first, second],
      builtins: false,
    });
    expect(result.decisions.map((decision) => [decision.location, decision.decision])).toEqual([
      [join(first, ".skillgate", "skills", "same", "SKILL.md"), "shadowed"],
      [join(first, ".agents", "skills", "same", "SKILL.md"), "shadowed"],
      [join(second, ".skillgate", "skills", "same", "SKILL.md"), "registered"],
    ]);
  });

  it("duplicates resolve the same way on every run (deterministic precedence, docs/skills.md: Decisions)", () => {
    const { tree, folders, skills } = project();
    writeSkill(join(folders.home, ".agents", "skills"), "dup");
    writeSkill(skills, "dup");
    writeSkill(join(folders.config, "skills"), "dup");
    const strip = (result: DiscoveryResult) =>
      result.decisions.map(({ name, source, location, decision, reasons }) => ({
        name,
        source,
        location,
        decision,
        reasons,
      }));
    const once = strip(discover(tree));
    for (let run = 0; run < 3; run += 1) expect(strip(discover(tree))).toEqual(once);
    expect(once.map((decision) => [decision.source, decision.decision])).toEqual([
      ["config", "shadowed"],
      ["user", "shadowed"],
      ["project", "registered"],
    ]);
  });

  it("a rejected skill does not shadow a valid one of the same name", () => {
    const { tree, folders, skills } = project();
    writeSkill(join(folders.home, ".agents", "skills"), "fallback");
    writeSkill(skills, "fallback", { frontMatter: { name: "fallback" } });
    const result = discover(tree);
    expect(decisionOf(result, "fallback", "user").decision).toBe("registered");
    expect(decisionOf(result, "fallback", "project").decision).toBe("rejected");
    expect(result.skills.map((skill) => skill.source)).toEqual(["user"]);
  });
});

describe("decisions: links and roots (docs/skills.md: The walk)", () => {
  it("a symlinked folder whose real path stays inside an allowed root is followed and registered", () => {
    const { tree, folders, skills } = project();
    const user = join(folders.home, ".agents", "skills");
    writeSkill(user, "shared-tool");
    writeSkill(join(skills, ".versions"), "pinned");
    mkdirSync(skills, { recursive: true });
    symlinkSync(join(user, "shared-tool"), join(skills, "shared-tool"));
    symlinkSync(join(skills, ".versions", "pinned"), join(skills, "pinned"));
    const result = discover(tree);
    // Hidden folders are searched: the folder is found once, at its first path in name order.
    expect(result.decisions.filter((decision) => decision.name === "pinned")).toHaveLength(1);
    expect(decisionOf(result, "pinned").decision).toBe("registered");
    expect(decisionOf(result, "pinned").location).toBe(join(skills, ".versions", "pinned", "SKILL.md"));
    expect(decisionOf(result, "shared-tool", "project").decision).toBe("registered");
    expect(decisionOf(result, "shared-tool", "user").decision).toBe("shadowed");
  });

  it("a trusted skill in an approved folder is registered", () => {
    const { tree, folders } = project();
    writeSkill(join(folders.home, ".agents", "skills"), "code-review", {
      frontMatter: { name: "code-review", description: "Review the current diff." },
    });
    expect(decisionOf(discover(tree), "code-review").decision).toBe("registered");
  });

  it("a skill folder whose path escapes every allowed root is path_not_allowed", () => {
    const { tree, skills } = project();
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeSkill(elsewhere, "outside");
    mkdirSync(skills, { recursive: true });
    symlinkSync(join(elsewhere, "outside"), join(skills, "escaper"));
    writeSkill(skills, "inside");
    const result = discover(tree);
    const decision = decisionOf(result, "escaper");
    expect(decision.decision).toBe("rejected");
    expect(codes(decision)).toEqual(["path_not_allowed"]);
    expect(decision.diagnostics[0]?.message).toContain(join(elsewhere, "outside"));
    expect(decision.skill).toBeUndefined();
    expect(result.skills.map((skill) => skill.name)).toEqual(["inside"]);
  });
});
