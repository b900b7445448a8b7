import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";
import { hasStackTrace } from "./harness.js";

/** The built CLI, run as a user runs it: a real process, real exit codes, real streams. */

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const main = join(repository, "dist", "surfaces", "cli", "main.js");

beforeAll(() => {
  if (!existsSync(main))
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repository, stdio: "pipe" });
});

function skillgate(argv: readonly string[], home: string) {
  const result = spawnSync(process.execPath, [main, ...argv], {
    cwd: home,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("the built skillgate binary", () => {
  it("--help prints the usage on stdout and exits 0", () => {
    const home = makeTree("skillgate-spawn-");
    const result = skillgate(["--help"], home);
    expect(result.code).toBe(0);
    expect(result.out).toContain("Usage: skillgate [options] [command]");
    expect(result.out).toContain("doctor");
    expect(result.err).toBe("");
  });

  it("a bad flag exits 2 with no stack trace", () => {
    const home = makeTree("skillgate-spawn-");
    const result = skillgate(["list", "--bogus"], home);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain("unknown option '--bogus'");
    expect(hasStackTrace(result.err)).toBe(false);
  });

  it("lists a skill as JSON from real folders", () => {
    const tree = makeTree("skillgate-spawn-");
    const home = join(tree, "home");
    mkdirSync(home);
    writeSkill(join(tree, "project", ".agents", "skills"), "from-disk");
    const flags = [
      "--config",
      join(tree, "config"),
      "--data",
      join(tree, "data"),
      "--root",
      join(tree, "project"),
    ];
    const result = skillgate([...flags, "--no-builtins", "list", "--json"], home);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.out) as {
      skills: unknown;
      capabilities: { id: string; status: string }[];
    };
    // A bare SKILL.md is shown as a capability too, display-only without schemas (docs/capabilities.md).
    expect(listed.capabilities.map((entry) => [entry.id, entry.status])).toEqual([
      ["skill:from-disk", "display_only"],
    ]);
    expect({ skills: listed.skills }).toEqual({
      skills: [
        {
          name: "from-disk",
          source: "project",
          decision: "registered",
          description: "Skill from-disk.",
          location: join(tree, "project", ".agents", "skills", "from-disk", "SKILL.md"),
          reasons: [],
        },
      ],
    });
  });

  it("a broken configuration exits 1 with one line and no stack trace", () => {
    const tree = makeTree("skillgate-spawn-");
    mkdirSync(join(tree, "config"));
    writeFileSync(join(tree, "config", "config.yaml"), "skills: [oops]\n");
    const result = skillgate(["--config", join(tree, "config"), "--data", join(tree, "data"), "list"], tree);
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toMatch(
      /^skillgate: configuration .* is invalid: "skills" must be a mapping \[invalid_config\]\n$/,
    );
    expect(hasStackTrace(result.err)).toBe(false);
  });

  it("doctor on an empty home is a useful report with exit 0", () => {
    const tree = makeTree("skillgate-spawn-");
    const home = join(tree, "home");
    mkdirSync(home);
    const result = skillgate(
      ["--config", join(tree, "config"), "--data", join(tree, "data"), "doctor"],
      home,
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain("Skill folders (lowest precedence first):");
    expect(result.out).toContain(
      `to add your own skills: mkdir -p ${join(home, ".agents", "skills")}/my-skill`,
    );
    expect(result.err).toBe("");
  });
});
