import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type CliSandbox, cliSandbox } from "../surfaces/cli/harness.js";

/**
 * The public skills' end-to-end runs: a skill folder copied into a project's
 * `.agents/skills`, run through `skillgate run … -- ARGS` in a real process (real
 * bubblewrap), and the same script run directly in the project, as its SKILL.md tells an
 * agent to. Both use Debian's /usr/bin/python3, which has python3-yaml and python3-pypdf.
 */

export const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

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
