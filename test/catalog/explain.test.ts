import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillDiscovery } from "../../src/catalog/discover.js";
import { explainSkill, type SkillExplanation } from "../../src/catalog/explain.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { ARGV_PROPERTY } from "../../src/skill/parameters-schema.js";
import { Skill } from "../../src/skill/skill.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

function discover(tree: string, extra: Skill[] = []) {
  return new SkillDiscovery().discover({
    folders: isolatedFolders(tree),
    roots: [join(tree, "project")],
    builtins: false,
    extra,
  });
}

function explained(tree: string, query: string, extra: Skill[] = []): SkillExplanation {
  const result = explainSkill(discover(tree, extra), query);
  if (!result.found) throw new Error(`${query} not found`);
  return result.explanation;
}

describe("explainSkill", () => {
  it("explains the winner, its hash, governance, scripts with their schemas, and who it shadows", () => {
    const tree = makeTree();
    const skills = join(tree, "project", ".agents", "skills");
    const user = join(isolatedFolders(tree).home, ".agents", "skills");
    writeSkill(user, "deploy");
    const directory = writeSkill(skills, "deploy", {
      frontMatter: {
        name: "deploy",
        description: "Deploy the site.",
        "allowed-tools": "Bash Read",
        metadata: {
          "skillgate.execution": "local",
          "skillgate.tier": "destructive",
          parameters_schema: {
            "scripts/push.sh": { type: "object", properties: { target: { type: "string" } } },
          },
        },
      },
      files: {
        "scripts/push.sh": 'echo "push $1"\n',
        "scripts/check.py": "print(1)\n",
        "scripts/README": "not a script",
      },
    });
    const explanation = explained(tree, "deploy");
    expect(explanation.decision).toMatchObject({ decision: "registered", source: "project" });
    expect(explanation.hash).toBe(hashSkillFolder(directory).hash);
    expect(explanation.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(explanation.governance).toMatchObject({
      execution: "local",
      tier: "destructive",
      network: "none",
    });
    expect(explanation.allowedTools).toEqual(["Bash", "Read"]);
    expect(explanation.scripts).toEqual([
      {
        path: "scripts/check.py",
        language: "python",
        schema: { type: "object", properties: { argv: ARGV_PROPERTY } },
      },
      {
        path: "scripts/push.sh",
        language: "bash",
        schema: { type: "object", properties: { target: { type: "string" } } },
        commandLine: { reads: "positional parameters" },
      },
    ]);
    expect(explanation.related.map((item) => [item.source, item.decision])).toEqual([["user", "shadowed"]]);
  });

  it("prefers the skill in effect to a rejected one of the same name, whichever source is later", () => {
    const tree = makeTree();
    const skills = join(tree, "project", ".agents", "skills");
    const user = join(isolatedFolders(tree).home, ".agents", "skills");
    writeSkill(user, "twin", { frontMatter: { name: "twin" } });
    writeSkill(skills, "twin");
    expect(explained(tree, "twin").decision).toMatchObject({ source: "project", decision: "registered" });
    writeSkill(user, "twin");
    writeSkill(skills, "twin", { frontMatter: { name: "twin" } });
    const explanation = explained(tree, "twin");
    expect(explanation.decision).toMatchObject({ source: "user", decision: "registered" });
    expect(explanation.related.map((item) => [item.source, item.decision])).toEqual([
      ["project", "rejected"],
    ]);
  });

  it("explains a rejected skill with its diagnostics", () => {
    const tree = makeTree();
    writeSkill(join(tree, "project", ".agents", "skills"), "broken", { frontMatter: { name: "broken" } });
    const explanation = explained(tree, "broken");
    expect(explanation.decision.decision).toBe("rejected");
    expect(explanation.governance).toBeUndefined();
    expect(explanation.scripts).toEqual([]);
    expect(explanation.diagnostics.map((item) => item.code)).toEqual(["missing_description"]);
  });

  it("does not read a folder that escapes its root", () => {
    const tree = makeTree();
    const skills = join(tree, "project", ".agents", "skills");
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeSkill(elsewhere, "outside", { files: { "scripts/run.py": "print(1)\n" } });
    writeSkill(skills, "inside");
    symlinkSync(join(elsewhere, "outside"), join(skills, "escaper"));
    const explanation = explained(tree, "escaper");
    expect(explanation.decision.decision).toBe("rejected");
    expect(explanation.hash).toBeUndefined();
    expect(explanation.scripts).toEqual([]);
  });

  it("a skill passed in without a folder has no hash and no scripts, and nothing on disk is read", () => {
    const tree = makeTree();
    const explanation = explained(tree, "in-memory", [
      new Skill({ name: "in-memory", source: "caller", description: "Lives in memory." }),
    ]);
    expect(explanation.decision).toMatchObject({ decision: "registered", source: "caller" });
    expect(explanation.hash).toBeUndefined();
    expect(explanation.scripts).toEqual([]);
    expect(explanation.diagnostics).toEqual([]);
  });

  it("finds by unique prefix, and lists candidates when ambiguous or nothing when unknown", () => {
    const tree = makeTree();
    const skills = join(tree, "project", ".agents", "skills");
    writeSkill(skills, "edit");
    writeSkill(skills, "editor");
    writeSkill(skills, "weather");
    const result = discover(tree);
    expect(explainSkill(result, "weath")).toMatchObject({
      found: true,
      explanation: { decision: { name: "weather" } },
    });
    expect(explainSkill(result, "edi")).toEqual({ found: false, candidates: ["edit", "editor"] });
    expect(explainSkill(result, "nope")).toEqual({ found: false, candidates: [] });
  });
});
