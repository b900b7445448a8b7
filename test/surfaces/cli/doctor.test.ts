import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";
import { cliSandbox, hasStackTrace } from "./harness.js";

interface DoctorJson {
  ok: boolean;
  configFile: string;
  dataFolder: string;
  folders: { source: string; kind: string; folder: string; reason: string; exists: boolean; found: number }[];
  notSearched: unknown[];
  counts: Record<string, number>;
  problems: {
    severity: string;
    code: string;
    subject: string;
    message: string;
    fix: string;
    location?: string;
  }[];
  checks: { name: string; ok: boolean; detail: string }[];
}

describe("skillgate doctor", () => {
  it("on an empty HOME: exit 0, every folder reported missing, and how to add your own skills", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["doctor"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    expect(result.out).toContain(`config file: ${join(sandbox.config, "config.yaml")}`);
    expect(result.out).toContain(`data folder: ${sandbox.data}`);
    expect(result.out).toContain("Skill folders (lowest precedence first):");
    for (const folder of [
      join(sandbox.data, "learned", "skills"),
      join(sandbox.data, "skills"),
      join(sandbox.config, "skills"),
      sandbox.userSkills,
      join(sandbox.project, ".skillgate", "skills"),
      sandbox.skills,
    ])
      expect(result.out).toMatch(
        new RegExp(`· ${folder.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")} {2}missing`),
      );
    expect(result.out).toContain(
      `to add your own skills: mkdir -p ${sandbox.userSkills}/my-skill and write my-skill/SKILL.md`,
    );
    expect(result.out).toContain("registered 0, display_only 0, disabled 0, shadowed 0, rejected 0");
    expect(result.out).toContain("Problems: 0 error(s), 0 warning(s)\n  none");
  });

  it("with the built-in skills on, an empty HOME is still clean and the built-ins are counted", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["doctor", "--json"], { builtins: true });
    const report = JSON.parse(result.out) as DoctorJson;
    expect(report.problems.filter((problem) => problem.severity === "error")).toEqual([]);
    expect(result.code).toBe(0);
    expect(report.ok).toBe(true);
    const builtin = report.folders.find((folder) => folder.kind === "builtin");
    expect(builtin?.exists).toBe(true);
    expect(builtin?.found).toBeGreaterThan(0);
    expect(report.counts.registered).toBe(builtin?.found);
  });

  it("a clean tree exits 0 and counts what it found per folder", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "alpha");
    writeSkill(sandbox.userSkills, "beta");
    const result = await sandbox.run(["doctor"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain(`✓ ${sandbox.skills}  1 found  (project ${sandbox.project})`);
    expect(result.out).toContain(`✓ ${sandbox.userSkills}  1 found  (your own skills)`);
    expect(result.out).not.toContain("to add your own skills");
    expect(result.out).toContain("registered 2,");
  });

  it("a rejected skill: exit 1, the problem, where it is and how to fix it", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "good");
    writeSkill(sandbox.skills, "no-desc", { frontMatter: { name: "no-desc" } });
    const result = await sandbox.run(["doctor"]);
    expect(result.code).toBe(1);
    expect(result.out).toContain("Problems: 1 error(s), 0 warning(s)");
    expect(result.out).toContain("  error no-desc: missing_description: ");
    expect(result.out).toContain(`      at ${join(sandbox.skills, "no-desc", "SKILL.md")}`);
    expect(result.out).toContain(
      "      fix: add a description: line saying what the skill does and when to use it",
    );
    expect(result.out).toContain("rejected 1");
  });

  it("a warning alone does not fail: a name that does not match its folder", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "folder", { frontMatter: { name: "other", description: "d" } });
    const result = await sandbox.run(["doctor"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("Problems: 0 error(s), 1 warning(s)");
    expect(result.out).toContain("warning other: name_mismatch: ");
    expect(result.out).toContain("fix: rename the folder or the name: field so they match");
  });

  it("an escaping link and a walk over its limits are problems with fixes", async () => {
    const sandbox = cliSandbox();
    mkdirSync(sandbox.skills, { recursive: true });
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeSkill(elsewhere, "outside");
    symlinkSync(join(elsewhere, "outside"), join(sandbox.skills, "escaper"));
    const result = await sandbox.run(["doctor", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as DoctorJson;
    expect(report.problems).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "path_not_allowed",
        subject: "escaper",
        fix: "move the skill into a skills folder or list its folder in the configuration",
      }),
    ]);
  });

  it("--json has a stable shape", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "no-desc", { frontMatter: { name: "no-desc" } });
    const result = await sandbox.run(["doctor", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as DoctorJson;
    expect(Object.keys(report)).toEqual([
      "ok",
      "configFile",
      "dataFolder",
      "folders",
      "notSearched",
      "counts",
      "problems",
      "checks",
      "sandbox",
      "interpreters",
      "capabilities",
    ]);
    expect(report.ok).toBe(false);
    expect(report.notSearched).toEqual([]);
    expect(report.configFile).toBe(join(sandbox.config, "config.yaml"));
    expect(report.dataFolder).toBe(sandbox.data);
    expect(report.counts).toEqual({ registered: 0, display_only: 0, disabled: 0, shadowed: 0, rejected: 1 });
    expect(
      report.folders.map((folder) => [folder.source, folder.folder, folder.exists, folder.found]),
    ).toEqual([
      ["learned", join(sandbox.data, "learned", "skills"), false, 0],
      ["store", join(sandbox.data, "skills"), false, 0],
      ["config", join(sandbox.config, "skills"), false, 0],
      ["user", sandbox.userSkills, false, 0],
      ["project", join(sandbox.project, ".skillgate", "skills"), false, 0],
      ["project", sandbox.skills, true, 1],
    ]);
    expect(report.problems).toEqual([
      {
        severity: "error",
        code: "missing_description",
        subject: "no-desc",
        message: expect.any(String),
        fix: expect.any(String),
        location: join(sandbox.skills, "no-desc", "SKILL.md"),
      },
    ]);
    expect(report.checks).toEqual([
      { name: "node", ok: true, detail: `Node.js ${process.versions.node}` },
      {
        name: "mcp",
        ok: true,
        detail: expect.stringMatching(/^skillgate mcp answered initialize in \d+ ms$/),
      },
    ]);
  });

  it("a broken configuration is a problem in the report, not a crash", async () => {
    const sandbox = cliSandbox();
    sandbox.writeConfig("skills:\n  disabled: nope\n");
    const result = await sandbox.run(["doctor"]);
    expect(result.code).toBe(1);
    expect(result.out).toContain("error configuration: invalid_config: configuration ");
    expect(result.out).toContain('"skills.disabled" must be a list of text');
    expect(result.out).toContain("fix: correct the file, or move it aside to use the defaults");
    expect(hasStackTrace(result.out + result.err)).toBe(false);
  });
});

describe("skillgate doctor and the sandbox", () => {
  it("says how the sandbox's limits are enforced on this host", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["doctor"]);
    expect(result.out).toContain("Sandbox:");
    expect(result.out).toMatch(/^ {2}processes {2}/m);
    expect(result.out).toMatch(/^ {2}timeout {4}/m);
    const report = JSON.parse((await sandbox.run(["doctor", "--json"])).out) as {
      sandbox: { ok: boolean; limits: Record<string, { by: string }> };
    };
    expect(Object.keys(report.sandbox.limits).sort()).toEqual([
      "cpu",
      "fileSize",
      "memory",
      "processes",
      "timeout",
      "tmp",
    ]);
    if (!report.sandbox.ok)
      throw new Error("the sandbox is not usable on this machine: run scripts/install-test-deps.sh");
  });
});

describe("skillgate doctor and the interpreters", () => {
  it("shows the interpreter each language uses, where it came from and what is mounted for it", async () => {
    const sandbox = cliSandbox();
    // A venv-like configured interpreter: a real python3 reached through a folder of its own.
    const bin = join(sandbox.project, "pyhome", "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync("/usr/bin/python3", join(bin, "python3"));
    sandbox.writeConfig(`runners:\n  interpreters:\n    python: ${join(bin, "python3")}\n`);
    const text = (await sandbox.run(["doctor"])).out;
    expect(text).toContain("Interpreters:");
    expect(text).toMatch(
      /^ {2}✓ python: \/usr\/bin\/python3(\.\d+)? 3\.\d+\.\d+ \(from runners\.interpreters\)$/m,
    );
    expect(text).toMatch(/^ {2}✓ node, typescript: \/\S+ v\d+\.\d+\.\d+ \(from PATH\)$/m);
    expect(text).toMatch(/^ {6}prefix \/usr$/m);
    expect(text).toMatch(/^ {6}mounted: nothing more \(it is under \/usr\)$/m);
    const report = JSON.parse((await sandbox.run(["doctor", "--json"])).out) as {
      interpreters: {
        languages: string[];
        program: string;
        source?: string;
        found?: string;
        mounts: unknown[];
      }[];
    };
    expect(report.interpreters.map((entry) => [entry.program, entry.languages])).toEqual([
      ["python3", ["python"]],
      ["node", ["node", "typescript"]],
      ["bash", ["bash"]],
    ]);
    expect(report.interpreters[0]).toMatchObject({
      source: "config",
      found: join(bin, "python3"),
      mounts: [],
    });
  });
});
