import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Diagnostic, diagnostic, hasErrors } from "../core/diagnostics.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { isValidSkillName } from "../skill/fields.js";
import { loadSkillFolder } from "../skill/load-skill.js";

/**
 * Built-in skills: the folders of the package's `skills/` folder. They are read once when
 * the store opens (the package does not change under a running process), are always
 * listed, always enabled, and read-only: every write to one of their names is refused.
 */

/** One built-in skill, with the content hash of its folder. */
export interface BuiltinSkill {
  readonly name: string;
  readonly folder: string;
  readonly description: string;
  readonly hash: string;
}

/** The built-ins found, and problems with folders that could not be used. */
export interface BuiltinSet {
  readonly skills: ReadonlyMap<string, BuiltinSkill>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads the built-in skills below `folder`. A missing folder means no built-ins. A
 * subfolder whose SKILL.md does not load, whose name does not match the folder, or that
 * cannot be hashed is left out and reported.
 */
export async function readBuiltins(folder: string): Promise<BuiltinSet> {
  const skills = new Map<string, BuiltinSkill>();
  const diagnostics: Diagnostic[] = [];
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { skills, diagnostics };
    throw error;
  }
  for (const entry of entries.sort((left, right) => (left.name < right.name ? -1 : 1))) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const directory = join(folder, entry.name);
    const loaded = loadSkillFolder(directory, { source: "builtin" });
    const skill = loaded.skill;
    if (skill === undefined || hasErrors(loaded.diagnostics)) {
      diagnostics.push(...loaded.diagnostics.filter((item) => item.severity === "error"));
      continue;
    }
    if (skill.name !== entry.name || !isValidSkillName(skill.name)) {
      diagnostics.push(
        diagnostic("name_mismatch", "error", `built-in skill folder ${entry.name} names "${skill.name}"`, {
          path: directory,
        }),
      );
      continue;
    }
    const hashed = hashSkillFolder(directory);
    if (hashed.hash === undefined || hasErrors(hashed.diagnostics)) {
      diagnostics.push(...hashed.diagnostics);
      continue;
    }
    skills.set(skill.name, {
      name: skill.name,
      folder: directory,
      description: skill.description,
      hash: hashed.hash,
    });
  }
  return { skills, diagnostics };
}
