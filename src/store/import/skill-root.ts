import { SKILL_FILE } from "../../skill/read-skill-file.js";
import { ImportRefusedError } from "./import-errors.js";
import type { ImportedFile } from "./skill-file-set.js";

/** The files of a skill with their paths made relative to the skill's own folder. */
export interface RootedFiles {
  readonly files: ReadonlyMap<string, ImportedFile>;
  /** The top folder that was stripped, or `undefined` when the skill was at the root. */
  readonly strippedFolder: string | undefined;
}

/**
 * Finds the skill inside an import: a `SKILL.md` at the root, or, when `allowTopFolder` is
 * set, a `SKILL.md` inside the one folder that holds every file (the shape most zip tools
 * produce), which is then stripped from every path.
 *
 * @throws ImportRefusedError `missing_skill_file`
 */
export function rootSkillFiles(
  files: ReadonlyMap<string, ImportedFile>,
  options: { allowTopFolder: boolean },
): RootedFiles {
  if (files.has(SKILL_FILE)) return { files, strippedFolder: undefined };
  if (options.allowTopFolder) {
    const tops = new Set<string>();
    for (const path of files.keys()) tops.add(path.includes("/") ? (path.split("/")[0] ?? path) : path);
    const [top] = tops;
    if (tops.size === 1 && top !== undefined && files.has(`${top}/${SKILL_FILE}`)) {
      const stripped = new Map<string, ImportedFile>();
      for (const [path, file] of files) stripped.set(path.slice(top.length + 1), file);
      return { files: stripped, strippedFolder: top };
    }
  }
  const where = options.allowTopFolder
    ? "at the root of the archive or in its one top folder"
    : "in the folder";
  throw new ImportRefusedError("missing_skill_file", `no ${SKILL_FILE} ${where}`, { path: SKILL_FILE });
}
