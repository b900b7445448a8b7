import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import {
  projectWithSkill,
  repository,
  runDirectly,
  runThroughSkillgate,
  writeProjectFile,
} from "./helpers.js";

beforeAll(() => requireBubblewrap());

const FIXTURE = join(repository, "test", "fixtures", "public-skills", "skill-creator");

/** A project with skill-creator installed and two skills of its own to validate. */
function setUp() {
  const sandbox = projectWithSkill(FIXTURE, "skill-creator");
  writeProjectFile(
    sandbox,
    "my-skill/SKILL.md",
    "---\nname: my-skill\ndescription: Formats release notes for the team.\n---\nFollow the steps.\n",
  );
  writeProjectFile(
    sandbox,
    "Bad_Skill/SKILL.md",
    "---\nname: Bad_Skill\ndescription: Has a name that is not kebab-case.\n---\nBody.\n",
  );
  return sandbox;
}

describe("anthropics/skills skill-creator, unchanged: scripts/quick_validate.py", () => {
  it.each([
    ["a relative path", (_project: string) => "my-skill"],
    ["an absolute path", (project: string) => join(project, "my-skill")],
    ["an invalid skill", (_project: string) => "Bad_Skill"],
    ["a folder that is not a skill", (_project: string) => "."],
  ])("with %s gives the same output and exit code as running it directly in the project", (_case, pathOf) => {
    const sandbox = setUp();
    const path = pathOf(sandbox.project);
    const direct = runDirectly(sandbox, join(sandbox.skill, "scripts", "quick_validate.py"), [path]);
    const governed = runThroughSkillgate(sandbox, "skill-creator", "scripts/quick_validate.py", [path]);
    expect(governed.out).toBe(direct.out);
    // skillgate adds one line on a failure: the script's exit code.
    expect(governed.err).toBe(
      direct.code === 0
        ? direct.err
        : `${direct.err}skillgate: scripts/quick_validate.py exited with code 1.\n`,
    );
    expect(governed.code).toBe(direct.code);
  });

  it("reports the results it reports directly: valid, not kebab-case, no SKILL.md", () => {
    const sandbox = setUp();
    const run = (path: string) =>
      runThroughSkillgate(sandbox, "skill-creator", "scripts/quick_validate.py", [path]);
    expect(run("my-skill")).toMatchObject({ out: "Skill is valid!\n", code: 0 });
    expect(run("Bad_Skill").out).toBe(
      "Name 'Bad_Skill' should be kebab-case (lowercase letters, digits, and hyphens only)\n",
    );
    expect(run("missing")).toMatchObject({ out: "SKILL.md not found\n", code: 1 });
  });

  it("without its argument it prints its own usage line, as it does directly", () => {
    const sandbox = setUp();
    const governed = runThroughSkillgate(sandbox, "skill-creator", "scripts/quick_validate.py", []);
    expect(governed.out).toBe("Usage: python quick_validate.py <skill_directory>\n");
    expect(governed.code).toBe(1);
  });
});
