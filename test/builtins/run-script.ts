import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { builtinSkillsFolder } from "../../src/core/package-root.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";

/**
 * Runs built-in skill scripts the way a sandbox does: a real child process (python3 for
 * `.py`, this Node for `.js`/`.mjs`), the arguments as JSON on stdin or in
 * SKILLGATE_SKILL_ARGS, and a fresh empty working folder that must still be empty after.
 */

/** What a script run produced. */
export interface ScriptRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Entries the script left in its working folder: always expected to be empty. */
  readonly leftInWorkingFolder: readonly string[];
  /** True when the skill folder's content hash differs after the run (nothing may be written there). */
  readonly changedSkillFolder: boolean;
}

/** The folder of one built-in skill. */
export function builtinFolder(skill: string): string {
  return join(builtinSkillsFolder(), skill);
}

/** The interpreter for a script path, by extension, as the sandbox picks it. */
export function interpreterFor(script: string): string {
  const extension = extname(script);
  if (extension === ".py") return "python3";
  if (extension === ".js" || extension === ".mjs") return process.execPath;
  throw new Error(`no interpreter for ${script}`);
}

/**
 * Runs `script` (relative to the skill folder) with `input`: an object is sent as JSON,
 * a string is sent as it is. `via: "env"` leaves stdin empty and sets SKILLGATE_SKILL_ARGS.
 */
export function runScript(
  skill: string,
  script: string,
  input: unknown,
  options: { via?: "stdin" | "env" } = {},
): ScriptRun {
  const text = typeof input === "string" ? input : JSON.stringify(input);
  const before = hashSkillFolder(builtinFolder(skill)).hash;
  const working = mkdtempSync(join(tmpdir(), "skillgate-builtin-run-"));
  const environment: NodeJS.ProcessEnv = { ...process.env, LANG: "C.UTF-8", TZ: "UTC" };
  delete environment.SKILLGATE_SKILL_ARGS;
  delete environment.PYTHONDONTWRITEBYTECODE;
  if (options.via === "env") environment.SKILLGATE_SKILL_ARGS = text;
  try {
    const result = spawnSync(interpreterFor(script), [join(builtinFolder(skill), script)], {
      cwd: working,
      env: environment,
      input: options.via === "env" ? "" : text,
      encoding: "utf8",
      // A guard against a hung child, not a timing assertion: every script finishes in well under a second.
      timeout: 30_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    if (result.error) throw result.error;
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      leftInWorkingFolder: readdirSync(working),
      changedSkillFolder: hashSkillFolder(builtinFolder(skill)).hash !== before,
    };
  } finally {
    rmSync(working, { recursive: true, force: true });
  }
}

/** The lines of a run's output, for exact comparisons without trailing-newline noise. */
export function outputLines(run: ScriptRun): string[] {
  return run.stdout.replace(/\n$/, "").split("\n");
}

/**
 * Turns [arguments, expected message] rows into [message, arguments] rows, so a table is
 * titled by the message it expects and large arguments stay out of test names.
 */
export function byMessage<Args>(rows: readonly (readonly [Args, string])[]): [string, Args][] {
  return rows.map(([args, message]) => [message, args]);
}
