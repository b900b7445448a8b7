import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeSkill } from "../../helpers/skill-tree.js";
import { cliSandbox, runCaptured } from "./harness.js";

/** A sandbox with a registered, a shadowed, a rejected, a disabled and a hidden skill. */
function mixedSandbox() {
  const sandbox = cliSandbox();
  writeSkill(sandbox.skills, "alpha", { frontMatter: { name: "alpha", description: "Alpha does a." } });
  writeSkill(sandbox.userSkills, "alpha", { frontMatter: { name: "alpha", description: "User alpha." } });
  writeSkill(sandbox.skills, "broken", { frontMatter: { name: "broken" } });
  writeSkill(sandbox.skills, "old-thing");
  writeSkill(sandbox.skills, "draft");
  sandbox.writeConfig("skills:\n  disabled: [old-*]\n  hidden: [draft]\n");
  return sandbox;
}

describe("skillgate list", () => {
  it("prints an aligned table of registered and display-only skills, and says how many more exist", async () => {
    const sandbox = mixedSandbox();
    const result = await sandbox.run(["list"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    const lines = result.out.trimEnd().split("\n");
    const header = lines[0] ?? "";
    expect(header.split(/\s{2,}/)).toEqual(["NAME", "SOURCE", "DECISION", "REASONS", "LOCATION"]);
    const rows = lines.slice(1, 3);
    expect(rows.map((row) => row.split(/\s{2,}/).slice(0, 4))).toEqual([
      ["alpha", "project", "registered", "-"],
      ["draft", "project", "display_only", "hidden_by_config"],
    ]);
    for (const column of ["SOURCE", "DECISION", "REASONS", "LOCATION"]) {
      const at = header.indexOf(column);
      for (const row of rows) expect(row.charAt(at - 1), `${column} is aligned`).toBe(" ");
      for (const row of rows) expect(row.charAt(at), `${column} is aligned`).not.toBe(" ");
    }
    expect(rows[0]).toContain(join(sandbox.skills, "alpha", "SKILL.md"));
    expect(result.out).toContain("3 more found (shadowed, disabled or rejected): skillgate list --all");
    expect(result.out).not.toContain("\u001b[");
  });

  it("--all shows every skill found with its reasons", async () => {
    const sandbox = mixedSandbox();
    const result = await sandbox.run(["list", "--all"]);
    expect(result.code).toBe(0);
    const rows = result.out
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((row) => row.split(/\s{2,}/).slice(0, 4));
    expect(rows).toEqual([
      ["alpha", "user", "shadowed", "shadowed_by"],
      ["alpha", "project", "registered", "-"],
      ["broken", "project", "rejected", "missing_description"],
      ["draft", "project", "display_only", "hidden_by_config"],
      ["old-thing", "project", "disabled", "disabled_by_config"],
    ]);
    expect(result.out).not.toContain("more found");
  });

  it("--json has a stable shape", async () => {
    const sandbox = mixedSandbox();
    const result = await sandbox.run(["list", "--all", "--json"]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as { skills: Record<string, unknown>[] };
    expect(Object.keys(parsed)).toEqual(["skills", "capabilities"]);
    for (const skill of parsed.skills)
      expect(Object.keys(skill)).toEqual([
        "name",
        "source",
        "decision",
        "description",
        "location",
        "reasons",
      ]);
    const [shadowed, alpha, broken] = parsed.skills;
    expect(alpha).toEqual({
      name: "alpha",
      source: "project",
      decision: "registered",
      description: "Alpha does a.",
      location: join(sandbox.skills, "alpha", "SKILL.md"),
      reasons: [],
    });
    expect(shadowed).toEqual({
      name: "alpha",
      source: "user",
      decision: "shadowed",
      description: "User alpha.",
      location: join(sandbox.userSkills, "alpha", "SKILL.md"),
      reasons: [
        {
          code: "shadowed_by",
          severity: "info",
          message: expect.stringContaining(join(sandbox.skills, "alpha", "SKILL.md")),
          winner: { source: "project", location: join(sandbox.skills, "alpha", "SKILL.md") },
        },
      ],
    });
    expect(broken).toEqual({
      name: "broken",
      source: "project",
      decision: "rejected",
      description: null,
      location: join(sandbox.skills, "broken", "SKILL.md"),
      reasons: [{ code: "missing_description", severity: "error", message: expect.any(String) }],
    });
    expect(result.out.endsWith("}\n")).toBe(true);
  });

  it("--json without --all lists registered and display-only skills only", async () => {
    const sandbox = mixedSandbox();
    const parsed = JSON.parse((await sandbox.run(["list", "--json"])).out) as {
      skills: { name: string; decision: string }[];
    };
    expect(parsed.skills.map((skill) => [skill.name, skill.decision])).toEqual([
      ["alpha", "registered"],
      ["draft", "display_only"],
    ]);
  });

  it("includes the built-in skills unless --no-builtins", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "mine");
    const withBuiltins = JSON.parse((await sandbox.run(["list", "--json"], { builtins: true })).out) as {
      skills: { name: string; source: string }[];
    };
    expect(withBuiltins.skills.some((skill) => skill.source === "builtin")).toBe(true);
    expect(withBuiltins.skills.map((skill) => skill.name)).toContain("mine");
    const names = withBuiltins.skills.map((skill) => skill.name);
    expect(names).toEqual([...names].sort());
    const without = JSON.parse((await sandbox.run(["list", "--json"])).out) as { skills: { name: string }[] };
    expect(without.skills.map((skill) => skill.name)).toEqual(["mine"]);
  });

  it("says where to look when nothing is found", async () => {
    const result = await cliSandbox().run(["list"]);
    expect(result.code).toBe(0);
    expect(result.out).toBe("No skills found. Run `skillgate doctor` to see where skillgate looked.\n");
  });

  it("colours decisions only when colour is on", async () => {
    const sandbox = mixedSandbox();
    const coloured = await sandbox.run(["list"], { color: true });
    expect(coloured.out).toContain("\u001b[32mregistered");
    expect(coloured.out).toContain("\u001b[1mNAME");
    const plain = await sandbox.run(["list"], { color: false });
    expect(plain.out).not.toContain("\u001b[");
  });

  it("accepts the global flags after the command too", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "late-flags");
    const result = await runCaptured(["list", "--json", ...sandbox.flags()]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).skills.map((skill: { name: string }) => skill.name)).toEqual([
      "late-flags",
    ]);
  });

  it("skills left out by the per-root cap are said on stderr, for the table and --json alike", async () => {
    const sandbox = cliSandbox();
    for (let index = 0; index < 4; index += 1) writeSkill(sandbox.skills, `skill-${index}`);
    sandbox.writeConfig("discovery:\n  max_skills_per_root: 3\n");
    const warning = `skillgate: warning: more than 3 skills below ${sandbox.skills}: 1 more were not loaded (see skillgate doctor)\n`;
    const table = await sandbox.run(["list", "--all"]);
    expect(table.code).toBe(0);
    expect(table.err).toBe(warning);
    const json = await sandbox.run(["list", "--json"]);
    expect(json.err).toBe(warning);
    expect(JSON.parse(json.out).skills).toHaveLength(3);
    sandbox.writeConfig("discovery:\n  max_skills_per_root: 4\n");
    const raised = await sandbox.run(["list", "--json"]);
    expect(raised.err).toBe("");
    expect(JSON.parse(raised.out).skills).toHaveLength(4);
  });
});
