import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import {
  ownFixture,
  projectWithSkill,
  runDirectly,
  runThroughSkillgate,
  type ScriptRun,
  writeProjectFile,
} from "./helpers.js";

/**
 * A validator shaped like the public ones (anthropics/skills' skill-creator has one): an
 * argparse script that takes a skill folder of the project and reads its front matter with
 * Debian's python3-yaml. Run through `skillgate run … -- PATH`, it must print and exit as it
 * does run directly in the project: relative paths resolve in the workspace, absolute paths
 * inside it are visible at the same place, and yaml is importable in the sandbox.
 */

beforeAll(() => requireBubblewrap());

const SKILL = "argv-project-validator";
const SCRIPT = "scripts/validate.py";

/** A project with the validator installed and three skill folders of its own to check. */
function setUp() {
  const sandbox = projectWithSkill(ownFixture(SKILL), SKILL);
  writeProjectFile(
    sandbox,
    "skills/release-notes/SKILL.md",
    "---\nname: release-notes\ndescription: Formats release notes for the team.\n---\nFollow the steps.\n",
  );
  writeProjectFile(
    sandbox,
    "skills/Bad_Name/SKILL.md",
    "---\nname: Bad_Name\ndescription: Has a name that is not lowercase.\n---\nBody.\n",
  );
  writeProjectFile(sandbox, "skills/broken/SKILL.md", "---\nname: [broken\n---\nBody.\n");
  return sandbox;
}

/** What skillgate adds to a failed run's stderr: one line with the exit code. */
function withExitLine(direct: ScriptRun): string {
  return direct.code === 0
    ? direct.err
    : `${direct.err}skillgate: ${SCRIPT} exited with code ${direct.code}.\n`;
}

describe("a skill-creator-shaped validator: argparse, a folder path, python3-yaml", () => {
  it.each([
    [
      "a relative path to a valid skill",
      (_project: string) => "skills/release-notes",
      "valid: release-notes\n",
      0,
    ],
    [
      "an absolute path to a valid skill",
      (project: string) => join(project, "skills", "release-notes"),
      "valid: release-notes\n",
      0,
    ],
    [
      "a relative path to a skill with a bad name",
      (_project: string) => "skills/Bad_Name",
      "invalid: name 'Bad_Name' is not lowercase words joined by hyphens (at most 64)\n",
      1,
    ],
    [
      "an absolute path to a skill whose front matter is not YAML",
      (project: string) => join(project, "skills", "broken"),
      "invalid: the front matter is not YAML (ParserError)\n",
      1,
    ],
    [
      "the project folder itself, which is not a skill",
      (_project: string) => ".",
      "invalid: no SKILL.md in .\n",
      1,
    ],
  ])(
    "with %s gives the same stdout and exit code as running it directly in the project",
    (_case, pathOf, expected, code) => {
      const sandbox = setUp();
      const path = pathOf(sandbox.project);
      const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), [path]);
      const governed = runThroughSkillgate(sandbox, SKILL, SCRIPT, [path]);
      expect(direct).toEqual({ out: expected, err: "", code });
      expect(governed.out).toBe(direct.out);
      expect(governed.code).toBe(direct.code);
      expect(governed.err).toBe(withExitLine(direct));
    },
  );

  it("a path outside the project is not visible: it reports no SKILL.md where the direct run finds one", () => {
    const sandbox = setUp();
    const outside = join(sandbox.tree, "outside", "elsewhere");
    mkdirSync(outside, { recursive: true });
    writeFileSync(
      join(outside, "SKILL.md"),
      "---\nname: elsewhere\ndescription: Outside the project.\n---\n",
    );
    expect(runDirectly(sandbox, join(sandbox.skill, SCRIPT), [outside])).toMatchObject({
      out: "valid: elsewhere\n",
      code: 0,
    });
    expect(runThroughSkillgate(sandbox, SKILL, SCRIPT, [outside])).toMatchObject({
      out: `invalid: no SKILL.md in ${outside}\n`,
      code: 1,
    });
  });

  it("without its argument argparse prints the same usage; skillgate names its exit code 2 and exits 1, as for every failed script", () => {
    const sandbox = setUp();
    const direct = runDirectly(sandbox, join(sandbox.skill, SCRIPT), []);
    const governed = runThroughSkillgate(sandbox, SKILL, SCRIPT, []);
    expect(direct.code).toBe(2);
    expect(direct.err).toContain("usage: validate.py [-h] folder\n");
    // docs/running-scripts.md: `skillgate run` exits 1 when the script fails, whatever its code.
    expect(governed).toEqual({ out: direct.out, err: withExitLine(direct), code: 1 });
  });
});
