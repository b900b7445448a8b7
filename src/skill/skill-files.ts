import { type Dirent, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

/**
 * The regular files of a skill folder, as paths relative to it with `/`, sorted by UTF-16
 * code units; links and special files are not listed, nor is anything below a linked
 * folder (and so none of them can be read or run through a tool). A folder that cannot be
 * read lists nothing.
 */
export function listSkillFiles(folder: string): string[] {
  const files: string[] = [];
  visitSkillFolder(folder, (path, entry) => {
    if (entry.isFile()) files.push(path);
    return true;
  });
  return files.sort();
}

/**
 * Calls `onEntry` for every entry below `folder` (paths relative to it, with `/`), going into
 * real folders only, never through a link; a folder that cannot be read adds nothing. The walk
 * stops when `onEntry` answers false.
 */
function visitSkillFolder(folder: string, onEntry: (path: string, entry: Dirent) => boolean): void {
  let going = true;
  const visit = (relative: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(relative === "" ? folder : join(folder, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      going = onEntry(path, entry);
      if (!going) return;
      if (entry.isDirectory()) visit(path);
      if (!going) return;
    }
  };
  visit("");
}

/** A symbolic link found inside a skill folder. */
export interface SkillFolderLink {
  /** The link's path relative to the skill folder, with `/`. */
  readonly path: string;
  /** The link's own text, as `readlink` gives it. */
  readonly target: string;
  /**
   * True when the link leads outside the skill folder: its target, taken as written, or
   * the real path it resolves to, is not the folder or below it. A link that leads nowhere
   * (dangling) is judged by its text.
   */
  readonly escapes: boolean;
}

/**
 * Every symbolic link below a skill folder, in path order, without following any of them;
 * at most `limit` entries are looked at (a folder that large is refused elsewhere). Runners
 * refuse a skill holding any link (a snapshot holds regular files only) and no tool reads
 * through one; this says where each leads, for `doctor` and `explain`.
 */
export function findSkillFolderLinks(folder: string, limit = 10_000): SkillFolderLink[] {
  const links: SkillFolderLink[] = [];
  const realFolder = realPathOf(folder) ?? resolve(folder);
  let seen = 0;
  visitSkillFolder(folder, (path, entry) => {
    seen += 1;
    if (seen > limit) return false;
    if (entry.isSymbolicLink()) links.push(describeLink(folder, realFolder, path));
    return true;
  });
  return links.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

function describeLink(folder: string, realFolder: string, path: string): SkillFolderLink {
  const absolute = join(folder, path);
  let target: string;
  try {
    target = readlinkSync(absolute);
  } catch {
    return { path, target: "", escapes: true };
  }
  // The link's text resolved against the folder it sits in, as the system would (through the real folder).
  const written = resolve(realFolder, dirname(path), target);
  const real = realPathOf(absolute);
  const escapes = !isWithin(written, realFolder) || (real !== undefined && !isWithin(real, realFolder));
  return { path, target, escapes };
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
