import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashSkillFolder } from "../../../src/skill/content-hash.js";
import { ARGV_PROPERTY } from "../../../src/skill/parameters-schema.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { cliSandbox, hasStackTrace } from "./harness.js";

function deploySandbox() {
  const sandbox = cliSandbox();
  writeSkill(sandbox.userSkills, "deploy", { frontMatter: { name: "deploy", description: "User deploy." } });
  const directory = writeSkill(sandbox.skills, "deploy", {
    frontMatter: {
      name: "deploy",
      description: "Deploy the site.",
      metadata: {
        "skillgate.execution": "sandbox",
        "skillgate.tier": "change",
        "skillgate.allowed-domains": "example.com",
      },
    },
    files: { "scripts/push.py": "print('push')\n" },
  });
  return { sandbox, directory };
}

describe("skillgate explain", () => {
  it("prints the decision first, then source, location, hash, grant, governance, scripts and shadowing", async () => {
    const { sandbox, directory } = deploySandbox();
    const result = await sandbox.run(["explain", "deploy"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    const lines = result.out.trimEnd().split("\n");
    expect(lines[0]).toBe("deploy: registered");
    const hash = hashSkillFolder(directory).hash as string;
    expect(lines).toContain("source:      project");
    expect(lines).toContain(`location:    ${join(directory, "SKILL.md")}`);
    expect(lines).toContain("description: Deploy the site.");
    expect(lines).toContain(`hash:        ${hash}`);
    expect(lines).toContain(`grant:       skill:deploy@${hash.slice(0, 8)}`);
    expect(result.out).toMatch(/grant: {7}skill:deploy@[0-9a-f]{8}\n/);
    expect(lines).toContain("governance:");
    expect(lines).toContain("  skillgate.execution        sandbox");
    expect(lines).toContain("  skillgate.tier             change");
    expect(lines).toContain("  skillgate.network          none");
    expect(lines).toContain("  skillgate.allowed-domains  example.com");
    expect(lines).toContain("  parameters_schema          (none declared; mode default)");
    expect(lines).toContain("scripts:");
    expect(lines).toContain(
      `  scripts/push.py (python) ${JSON.stringify({ type: "object", properties: { argv: ARGV_PROPERTY, node: { type: "string", description: "The managed server to run on, by name." } } })}`,
    );
    expect(lines).toContain(`shadows:     user ${join(sandbox.userSkills, "deploy", "SKILL.md")} (shadowed)`);
  });

  it("--json carries the list fields plus hash, grant, governance, scripts and related decisions", async () => {
    const { sandbox, directory } = deploySandbox();
    const result = await sandbox.run(["explain", "deploy", "--json"]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      "name",
      "source",
      "decision",
      "description",
      "location",
      "reasons",
      "properties",
      "hash",
      "grant",
      "governance",
      "allowedTools",
      "scripts",
      "packages",
      "related",
      "diagnostics",
      "capabilities",
    ]);
    const hash = hashSkillFolder(directory).hash as string;
    expect(parsed).toMatchObject({
      name: "deploy",
      decision: "registered",
      hash,
      grant: `skill:deploy@${hash.slice(0, 8)}`,
      governance: { execution: "sandbox", tier: "change", network: "none", allowedDomains: ["example.com"] },
      scripts: [{ path: "scripts/push.py", language: "python" }],
      related: [{ name: "deploy", source: "user", decision: "shadowed" }],
      diagnostics: [],
    });
  });

  it("shows every field the specification defines, as read-properties does (JSON and text)", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "pdf-tools", {
      frontMatter: {
        name: "pdf-tools",
        description: "Fill and merge PDF forms.",
        license: "Apache-2.0",
        compatibility: "Needs python3 and network access",
        "allowed-tools": "Bash(python3:*) Read",
        metadata: { author: "docs-team", version: "1.2", "skillgate.tier": "read" },
      },
    });
    writeSkill(sandbox.skills, "bare", { frontMatter: { name: "bare", description: "Only the two." } });
    const json = JSON.parse((await sandbox.run(["explain", "pdf-tools", "--json"])).out) as Record<
      string,
      unknown
    >;
    expect(json.properties).toEqual({
      name: "pdf-tools",
      description: "Fill and merge PDF forms.",
      license: "Apache-2.0",
      compatibility: "Needs python3 and network access",
      "allowed-tools": "Bash(python3:*) Read",
      metadata: { author: "docs-team", version: "1.2", "skillgate.tier": "read" },
    });
    // Absent optional fields are left out, as read-properties leaves them out.
    const bare = JSON.parse((await sandbox.run(["explain", "bare", "--json"])).out) as Record<
      string,
      unknown
    >;
    expect(bare.properties).toEqual({ name: "bare", description: "Only the two." });
    const lines = (await sandbox.run(["explain", "pdf-tools"])).out.split("\n");
    expect(lines).toContain("license:     Apache-2.0");
    expect(lines).toContain("compatibility: Needs python3 and network access");
    expect(lines).toContain("metadata:");
    expect(lines).toContain("  author: docs-team");
    expect(lines).toContain("  version: 1.2");
    expect(lines).toContain("  skillgate.tier: read");
    expect(lines).toContain("allowed-tools: Bash(python3:*) Read");
  });

  it("a rejected skill has no properties (null in JSON)", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "no-desc", { frontMatter: { name: "no-desc" } });
    const json = JSON.parse((await sandbox.run(["explain", "no-desc", "--json"])).out) as Record<
      string,
      unknown
    >;
    expect(json.properties).toBeNull();
  });

  it("shows the reasons of a rejected skill and its diagnostics with their fix", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "broken", { frontMatter: { name: "broken", description: "d", extra: 1 } });
    writeSkill(sandbox.skills, "no-desc", { frontMatter: { name: "no-desc" } });
    const result = await sandbox.run(["explain", "no-desc"]);
    expect(result.code).toBe(0);
    const lines = result.out.split("\n");
    expect(lines[0]).toBe("no-desc: rejected");
    expect(lines[1]).toMatch(/^ {2}missing_description: /);
    expect(result.out).toContain("diagnostics:\n  error missing_description: ");
    const warned = await sandbox.run(["explain", "broken"]);
    expect(warned.out.split("\n")[0]).toBe("broken: registered");
    expect(warned.out).toContain("unknown_field");
  });

  it("a display-only skill says why", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "odd-tier", {
      frontMatter: { name: "odd-tier", description: "d", metadata: { "skillgate.tier": "godmode" } },
    });
    const result = await sandbox.run(["explain", "odd-tier"]);
    expect(result.out.split("\n")[0]).toBe("odd-tier: display_only");
    expect(result.out.split("\n")[1]).toMatch(/^ {2}invalid_governance: /);
  });

  it("an unknown name exits 1 with one line; an ambiguous one lists the candidates", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "edit");
    writeSkill(sandbox.skills, "editor");
    const unknown = await sandbox.run(["explain", "nope"]);
    expect(unknown).toEqual({ code: 1, out: "", err: 'skillgate: no skill named "nope" [not_found]\n' });
    const ambiguous = await sandbox.run(["explain", "edi"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.out).toBe("");
    expect(ambiguous.err).toBe('skillgate: no skill named "edi" (did you mean: edit, editor) [not_found]\n');
    expect(hasStackTrace(ambiguous.err)).toBe(false);
  });

  it("a unique prefix explains the skill it names", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "weather");
    const result = await sandbox.run(["explain", "weath"]);
    expect(result.code).toBe(0);
    expect(result.out.split("\n")[0]).toBe("weather: registered");
  });

  it("explains a built-in skill", async () => {
    const sandbox = cliSandbox();
    const list = JSON.parse((await sandbox.run(["list", "--json"], { builtins: true })).out) as {
      skills: { name: string; source: string }[];
    };
    const builtin = list.skills.find((skill) => skill.source === "builtin");
    expect(builtin).toBeDefined();
    const result = await sandbox.run(["explain", builtin?.name ?? ""], { builtins: true });
    expect(result.code).toBe(0);
    expect(result.out).toContain("source:      builtin");
    expect(result.out).toMatch(/grant: {7}skill:[a-z0-9-]+@[0-9a-f]{8}\n/);
  });
});
