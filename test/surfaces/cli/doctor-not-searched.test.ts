import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";
import { cliSandbox } from "./harness.js";

interface NotSearchedJson {
  folder: string;
  source: string;
  reason: string;
  count: number;
  names?: Record<string, number>;
  message: string;
}

interface DoctorJson {
  ok: boolean;
  notSearched: NotSearchedJson[];
  counts: Record<string, number>;
  problems: {
    severity: string;
    code: string;
    subject: string;
    message: string;
    fix: string;
    location?: string;
  }[];
}

async function doctorJson(sandbox: ReturnType<typeof cliSandbox>) {
  const result = await sandbox.run(["doctor", "--json"]);
  return { code: result.code, report: JSON.parse(result.out) as DoctorJson };
}

const catalogProblems = (report: DoctorJson) =>
  report.problems.filter((problem) => problem.subject !== "sandbox" && problem.subject !== "mcp");

describe("skillgate doctor: what discovery did not search or load", () => {
  it("hidden skill folders are found; .git and node_modules are skipped and counted, not a problem", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.userSkills, ".system/skill-creator");
    writeSkill(sandbox.userSkills, ".curated/gh-fix-ci");
    writeSkill(sandbox.userSkills, ".git/in-git");
    writeSkill(sandbox.userSkills, "tools/node_modules/in-modules");
    const { report } = await doctorJson(sandbox);
    expect(catalogProblems(report)).toEqual([]);
    expect(report.counts.registered).toBe(2);
    expect(report.notSearched).toEqual([
      {
        folder: sandbox.userSkills,
        source: "user",
        reason: "skipped_folder",
        count: 2,
        names: { ".git": 1, node_modules: 1 },
        message: "2 folder(s) skipped by name: .git 1, node_modules 1",
      },
    ]);
    const human = await sandbox.run(["doctor"]);
    expect(human.out).toContain("Not searched or not loaded:");
    expect(human.out).toContain(
      `  ${sandbox.userSkills}: 2 folder(s) skipped by name: .git 1, node_modules 1 (skipped_folder)`,
    );
  });

  it("the depth limit: a count and a warning, with the config key that raises it", async () => {
    const sandbox = cliSandbox();
    sandbox.writeConfig("discovery:\n  max_depth: 2\n");
    writeSkill(sandbox.skills, "a/shallow");
    writeSkill(sandbox.skills, "b/c/too-deep");
    writeSkill(sandbox.skills, "d/e/f/deeper");
    const { report } = await doctorJson(sandbox);
    expect(report.counts.registered).toBe(1);
    expect(report.notSearched).toEqual([
      expect.objectContaining({ folder: sandbox.skills, reason: "depth_limit", count: 2 }),
    ]);
    expect(catalogProblems(report)).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "limit_exceeded",
        subject: sandbox.skills,
        fix: expect.stringContaining("discovery.max_depth"),
      }),
    ]);
  });

  it("the per-root cap: the skills left out are counted, an error (exit 1), and raising the cap loads them", async () => {
    const sandbox = cliSandbox();
    for (let index = 0; index < 5; index += 1) writeSkill(sandbox.skills, `skill-${index}`);
    sandbox.writeConfig("discovery:\n  max_skills_per_root: 2\n");
    const capped = await doctorJson(sandbox);
    expect(capped.code).toBe(1);
    expect(capped.report.counts.registered).toBe(2);
    expect(capped.report.notSearched).toEqual([
      {
        folder: sandbox.skills,
        source: "project",
        reason: "skill_limit",
        count: 3,
        message: "3 skill(s) past the per-root cap were not loaded",
      },
    ]);
    expect(catalogProblems(capped.report)).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "limit_exceeded",
        message: `more than 2 skills below ${sandbox.skills}: 3 more were not loaded`,
        fix: expect.stringContaining("discovery.max_skills_per_root"),
      }),
    ]);
    const human = await sandbox.run(["doctor"]);
    expect(human.out).toContain(
      `  ${sandbox.skills}: 3 skill(s) past the per-root cap were not loaded (skill_limit)`,
    );
    sandbox.writeConfig("discovery:\n  max_skills_per_root: 5\n");
    const raised = await doctorJson(sandbox);
    expect(raised.report.counts.registered).toBe(5);
    expect(raised.report.notSearched).toEqual([]);
  });

  it("a bad cap in config.yaml is invalid_config in the report", async () => {
    const sandbox = cliSandbox();
    sandbox.writeConfig("discovery:\n  max_skills_per_root: lots\n");
    const { code, report } = await doctorJson(sandbox);
    expect(code).toBe(1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: "invalid_config",
        subject: "configuration",
        message: expect.stringContaining(
          '"discovery.max_skills_per_root" must be a whole number from 1 to 1000000',
        ),
      }),
    ]);
  });
});

describe("skillgate doctor: links inside a skill", () => {
  it("a link leading outside the skill is path_not_allowed (exit 1); one inside is symlink_not_allowed", async () => {
    const sandbox = cliSandbox();
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeFileSync(join(elsewhere, "secret.txt"), "outside\n");
    const leaky = writeSkill(sandbox.skills, "leaky");
    mkdirSync(join(leaky, "scripts"));
    symlinkSync(join(elsewhere, "secret.txt"), join(leaky, "scripts", "data.txt"));
    symlinkSync("../../../..", join(leaky, "up"));
    const tidy = writeSkill(sandbox.skills, "tidy", { files: { "references/guide.md": "guide\n" } });
    symlinkSync("references/guide.md", join(tidy, "guide.md"));
    writeSkill(sandbox.skills, "clean");
    const { code, report } = await doctorJson(sandbox);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    // Discovery read each SKILL.md; the links are the doctor's findings.
    expect(report.counts.registered).toBe(3);
    expect(catalogProblems(report)).toEqual([
      {
        severity: "error",
        code: "path_not_allowed",
        subject: "leaky",
        message: `scripts/data.txt is a symbolic link leading outside the skill (to ${join(elsewhere, "secret.txt")}); runners refuse to run a skill holding it and no tool reads through it`,
        fix: "replace the link with a copy of what it points to, inside the skill folder",
        location: join(leaky, "scripts", "data.txt"),
      },
      expect.objectContaining({ code: "path_not_allowed", subject: "leaky", location: join(leaky, "up") }),
      expect.objectContaining({
        severity: "error",
        code: "symlink_not_allowed",
        subject: "tidy",
        location: join(tidy, "guide.md"),
      }),
    ]);
    const human = await sandbox.run(["doctor"]);
    expect(human.code).toBe(1);
    expect(human.out).toContain(
      "  error leaky: path_not_allowed: scripts/data.txt is a symbolic link leading outside the skill",
    );
  });
});
