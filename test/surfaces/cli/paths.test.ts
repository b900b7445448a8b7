import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinSkillsFolder } from "../../../src/core/package-root.js";
import { cliSandbox } from "./harness.js";

describe("skillgate paths", () => {
  it("lists the config, data and skill folders in precedence order", async () => {
    const sandbox = cliSandbox();
    mkdirSync(sandbox.skills, { recursive: true });
    const result = await sandbox.run(["paths"], { builtins: true });
    expect(result.code).toBe(0);
    const lines = result.out.trimEnd().split("\n");
    expect(lines[0]).toBe(`config: ${sandbox.config}`);
    expect(lines[1]).toBe(
      `config file: ${join(sandbox.config, "config.yaml")} (not present; defaults apply)`,
    );
    expect(lines[2]).toBe(`data:   ${sandbox.data}`);
    expect(lines.slice(4)).toEqual([
      `   1. builtin  ${builtinSkillsFolder()}`,
      `   2. learned  ${join(sandbox.data, "learned", "skills")}  (missing)`,
      `   3. store    ${join(sandbox.data, "skills")}  (missing)`,
      `   4. config   ${join(sandbox.config, "skills")}  (missing)`,
      `   5. user     ${sandbox.userSkills}  (missing)`,
      `   6. project  ${join(sandbox.project, ".skillgate", "skills")}  (missing)`,
      `   7. project  ${sandbox.skills}`,
    ]);
  });

  it("adds configured folders in their places, and --json says the same", async () => {
    const sandbox = cliSandbox();
    sandbox.writeConfig("skills:\n  user_folders: [~/.claude/skills]\n  project_folders: [.claude/skills]\n");
    const result = await sandbox.run(["paths", "--json"]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as {
      config: string;
      configFile: string;
      data: string;
      skillFolders: { source: string; folder: string; reason: string; exists: boolean }[];
    };
    expect(Object.keys(parsed)).toEqual(["config", "configFile", "data", "skillFolders"]);
    expect(parsed.config).toBe(sandbox.config);
    expect(parsed.configFile).toBe(join(sandbox.config, "config.yaml"));
    expect(parsed.data).toBe(sandbox.data);
    expect(parsed.skillFolders.map((folder) => [folder.source, folder.folder, folder.exists])).toEqual([
      ["learned", join(sandbox.data, "learned", "skills"), false],
      ["store", join(sandbox.data, "skills"), false],
      ["config", join(sandbox.config, "skills"), false],
      ["user", sandbox.userSkills, false],
      ["user", join(sandbox.home, ".claude", "skills"), false],
      ["project", join(sandbox.project, ".skillgate", "skills"), false],
      ["project", sandbox.skills, false],
      ["project", join(sandbox.project, ".claude", "skills"), false],
    ]);
    for (const folder of parsed.skillFolders) expect(folder.reason.length).toBeGreaterThan(0);
  });

  it("several --root flags add each root's folders in order", async () => {
    const sandbox = cliSandbox();
    const second = join(sandbox.tree, "second");
    const parsed = JSON.parse((await sandbox.run(["paths", "--json", "--root", second])).out) as {
      skillFolders: { folder: string }[];
    };
    expect(parsed.skillFolders.map((folder) => folder.folder).slice(-4)).toEqual([
      join(sandbox.project, ".skillgate", "skills"),
      sandbox.skills,
      join(second, ".skillgate", "skills"),
      join(second, ".agents", "skills"),
    ]);
  });
});
