import { extname } from "node:path";
import { listSkillFiles } from "./skill-files.js";

/** The languages skillgate knows how to run, by file extension. */
export type ScriptLanguage = "python" | "node" | "typescript" | "bash" | "csharp";

const LANGUAGES: Readonly<Record<string, ScriptLanguage>> = {
  ".py": "python",
  ".js": "node",
  ".mjs": "node",
  ".cjs": "node",
  ".ts": "typescript",
  ".sh": "bash",
  ".bash": "bash",
  ".cs": "csharp",
};

/** The language of a script path by its extension, or `undefined` for files that are not scripts. */
export function scriptLanguage(path: string): ScriptLanguage | undefined {
  return LANGUAGES[extname(path).toLowerCase()];
}

/** A script of a skill: its path relative to the skill folder and its language. */
export interface SkillScript {
  readonly path: string;
  readonly language: ScriptLanguage;
}

/**
 * The scripts of a skill: files of a known language under `scripts/`, at any depth,
 * sorted by path. Symbolic links are not followed or listed (a linked `scripts` folder
 * included: a run's snapshot would refuse it).
 */
export function listSkillScripts(directory: string): SkillScript[] {
  return scriptsAmong(listSkillFiles(directory));
}

/**
 * The scripts among a skill's files as {@link listSkillFiles} lists them (relative paths
 * with `/`, sorted), for a caller that lists the whole folder anyway: the same answer as
 * {@link listSkillScripts} without a second listing.
 */
export function scriptsAmong(files: readonly string[]): SkillScript[] {
  const scripts: SkillScript[] = [];
  for (const path of files) {
    if (!path.startsWith(SCRIPTS_PREFIX)) continue;
    const language = scriptLanguage(path);
    if (language !== undefined) scripts.push({ path, language });
  }
  return scripts;
}

const SCRIPTS_PREFIX = "scripts/";
