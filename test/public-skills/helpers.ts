import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type CliSandbox, cliSandbox } from "../surfaces/cli/harness.js";

/**
 * End-to-end runs of skills shaped like the public ones: a skill folder copied into a
 * project's `.agents/skills`, run through `skillgate run … -- ARGS` in a real process (real
 * bubblewrap), and the same script run directly in the project, as its SKILL.md tells an
 * agent to. Both use Debian's /usr/bin/python3, which has python3-yaml and python3-pypdf.
 * The skills are this repository's own fixtures (test/fixtures/skills/argv-*), or the real
 * public skills from a checkout named by SKILLGATE_TEST_PUBLIC_SKILLS (never copied here).
 */

export const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** One of this repository's own skill fixtures. */
export function ownFixture(name: string): string {
  return join(repository, "test", "fixtures", "skills", name);
}

/** The variable naming a checkout of https://github.com/anthropics/skills. */
export const PUBLIC_SKILLS_VARIABLE = "SKILLGATE_TEST_PUBLIC_SKILLS";

/** What a skipped public-skill test prints: exactly how to run it. */
export const PUBLIC_SKILLS_HOW_TO =
  `skipping the tests of anthropics/skills' own scripts: ${PUBLIC_SKILLS_VARIABLE} is not set. ` +
  "Their code is not copied into this repository; to run them, clone it and point the variable at the checkout: " +
  `git clone https://github.com/anthropics/skills ~/src/anthropics-skills && ${PUBLIC_SKILLS_VARIABLE}=~/src/anthropics-skills npx vitest run test/public-skills`;

/**
 * The folder of public skill `name` (`<checkout>/skills/<name>`), or undefined when the
 * variable is not set. A variable that is set but names no such folder is an error, not a
 * skip: someone asked for these tests and would otherwise get a silent pass.
 */
export function publicSkill(name: string, script: string): string | undefined {
  const checkout = process.env[PUBLIC_SKILLS_VARIABLE];
  if (checkout === undefined || checkout === "") return undefined;
  const folder = join(checkout, "skills", name);
  if (!existsSync(join(folder, script)))
    throw new Error(
      `${PUBLIC_SKILLS_VARIABLE}=${checkout} is not a checkout of anthropics/skills: ${join("skills", name, script)} is not in it`,
    );
  return folder;
}

/** The interpreter both runs use: Debian's, with the packages these scripts import. */
export const SYSTEM_PYTHON = "/usr/bin/python3";

/** What one run printed and how it ended. */
export interface ScriptRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** A project holding a copy of `skillFolder` as a project skill, with python pinned to Debian's. */
export function projectWithSkill(skillFolder: string, name: string): CliSandbox & { skill: string } {
  const sandbox = cliSandbox();
  const skill = join(sandbox.skills, name);
  mkdirSync(sandbox.skills, { recursive: true });
  cpSync(skillFolder, skill, { recursive: true });
  sandbox.writeConfig(`runners:\n  interpreters:\n    python: ${SYSTEM_PYTHON}\n`);
  // As root the sandbox user is 65534 and must be able to read the project.
  chmodSync(sandbox.project, 0o755);
  return { ...sandbox, skill };
}

/** `skillgate run SKILL SCRIPT --yes -- ARGS…` in a real process, from the project. */
export function runThroughSkillgate(
  sandbox: CliSandbox,
  skill: string,
  script: string,
  argv: readonly string[],
): ScriptRun {
  const result = spawnSync(
    process.execPath,
    [
      // tsx by its file: the process starts in the project, where the package is not found by name.
      "--import",
      pathToFileURL(join(repository, "node_modules", "tsx", "dist", "loader.mjs")).href,
      join(repository, "src/surfaces/cli/main.ts"),
      ...sandbox.flags(),
      "run",
      skill,
      script,
      "--yes",
      "--",
      ...argv,
    ],
    {
      cwd: sandbox.project,
      env: { PATH: process.env.PATH ?? "", HOME: sandbox.home, NO_COLOR: "1" },
      encoding: "utf8",
    },
  );
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** The script run directly in the project, as the skill's instructions say: `python3 scripts/x.py ARGS…`. */
export function runDirectly(sandbox: CliSandbox, scriptFile: string, argv: readonly string[]): ScriptRun {
  const result = spawnSync(SYSTEM_PYTHON, [scriptFile, ...argv], {
    cwd: sandbox.project,
    env: { PATH: "/usr/bin:/bin", HOME: sandbox.home, LANG: "C.UTF-8" },
    encoding: "utf8",
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** Writes a file into the project. */
export function writeProjectFile(sandbox: CliSandbox, path: string, text: string): string {
  const file = join(sandbox.project, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
