import { readdirSync } from "node:fs";
import { extname, join } from "node:path";

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
 * sorted by path. Symbolic links are not followed or listed.
 */
export function listSkillScripts(directory: string): SkillScript[] {
  const scripts: SkillScript[] = [];
  const visit = (relative: string): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(join(directory, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) {
        const language = scriptLanguage(entry.name);
        if (language !== undefined) scripts.push({ path, language });
      }
    }
  };
  visit("scripts");
  return scripts.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}
