import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The regular files of a skill folder, as paths relative to it with `/`, sorted by UTF-16
 * code units; links and special files are not listed, nor is anything below a linked
 * folder (and so none of them can be read or run through a tool). A folder that cannot be
 * read lists nothing.
 */
export function listSkillFiles(folder: string): string[] {
  const files: string[] = [];
  const visit = (relative: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(relative === "" ? folder : join(folder, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  visit("");
  return files.sort();
}
