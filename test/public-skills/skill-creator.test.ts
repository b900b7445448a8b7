import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import {
  PUBLIC_SKILLS_HOW_TO,
  projectWithSkill,
  publicSkill,
  runDirectly,
  runThroughSkillgate,
  writeProjectFile,
} from "./helpers.js";

/**
 * anthropics/skills' own `skill-creator/scripts/quick_validate.py`, run from a checkout named
 * by SKILLGATE_TEST_PUBLIC_SKILLS (its code is read from there, never copied into this
 * repository). Without the variable these tests are skipped and say how to run them; the
 * same shape is always tested with this repository's own fixture
 * (argv-project-validator.test.ts).
 */
const SCRIPT = "scripts/quick_validate.py";
const SKILL_CREATOR = publicSkill("skill-creator", SCRIPT);

if (SKILL_CREATOR === undefined) console.warn(PUBLIC_SKILLS_HOW_TO);

beforeAll(() => {
  if (SKILL_CREATOR !== undefined) requireBubblewrap();
});

/** A project with skill-creator installed and two skills of its own to validate. */
function setUp() {
  const sandbox = projectWithSkill(SKILL_CREATOR as string, "skill-creator");
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

describe.skipIf(SKILL_CREATOR === undefined)(
  "anthropics/skills skill-creator, from a checkout: scripts/quick_validate.py",
  () => {
    it.each([
      ["a relative path", (_project: string) => "my-skill"],
      ["an absolute path", (project: string) => join(project, "my-skill")],
      ["an invalid skill", (_project: string) => "Bad_Skill"],
      ["a folder that is not a skill", (_project: string) => "."],
    ])(
      "with %s gives the same output and exit code as running it directly in the project",
      (_case, pathOf) => {
        const sandbox = setUp();
        const path = pathOf(sandbox.project);
        const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), [path]);
        const governed = runThroughSkillgate(sandbox, "skill-creator", SCRIPT, [path]);
        expect(governed.out).toBe(direct.out);
        // skillgate adds one line on a failure: the script's exit code.
        expect(governed.err).toBe(
          direct.code === 0
            ? direct.err
            : `${direct.err}skillgate: ${SCRIPT} exited with code ${direct.code}.\n`,
        );
        expect(governed.code).toBe(direct.code);
      },
    );

    it("tells a valid skill from an invalid one and from a folder without SKILL.md", () => {
      const sandbox = setUp();
      const run = (path: string) => runThroughSkillgate(sandbox, "skill-creator", SCRIPT, [path]);
      expect(run("my-skill").code).toBe(0);
      expect(run("Bad_Skill").code).toBe(1);
      expect(run("missing").code).toBe(1);
    });

    it("without its argument it prints what it prints directly", () => {
      const sandbox = setUp();
      const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), []);
      const governed = runThroughSkillgate(sandbox, "skill-creator", SCRIPT, []);
      expect(governed.out).toBe(direct.out);
      expect(governed.code).toBe(1);
    });
  },
);
