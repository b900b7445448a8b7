import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { lstat, open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { normaliseEntryPath, printable } from "./entry-path.js";
import { ImportRefusedError } from "./import-errors.js";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits, maxZipEntries } from "./limits.js";
import { SkillFileSet } from "./skill-file-set.js";
import { rootSkillFiles } from "./skill-root.js";
import type { ImportResult } from "./unpack-zip.js";
import { writeSkillFolder } from "./write-skill-folder.js";

/** The kinds of file a folder may hold besides regular files and folders, for the refusal text. */
const SPECIAL_KINDS: readonly [(entry: Stats) => boolean, string][] = [
  [(entry) => entry.isFIFO(), "a FIFO"],
  [(entry) => entry.isSocket(), "a socket"],
  [(entry) => entry.isCharacterDevice(), "a character device"],
  [(entry) => entry.isBlockDevice(), "a block device"],
];

/** Options of {@link copySkillFolder}. */
export interface FolderCopyOptions {
  /**
   * Called once the tree was walked and passed the limits, before any file is read: for
   * progress ("found N files"). Whatever changes in the folder from here on is caught.
   */
  readonly onWalked?: (found: { readonly files: number; readonly bytes: number }) => void | Promise<void>;
}

/**
 * Copies a skill from a folder on this machine into `targetFolder` (absent or empty), with
 * the checks a zip gets (docs/import.md, "Local folder"), or refuses it and leaves the target
 * as it was. The folder itself must hold `SKILL.md`.
 *
 * The tree is walked first with `lstat`, never following a link: a symbolic link anywhere is
 * `symlink_not_allowed`, a FIFO, socket, device, hard-linked file or setuid/setgid/sticky
 * mode is `unsupported_entry`, every name passes the zip's path rules, and the counts and
 * sizes are checked before a byte is read. Then each file is opened without following links
 * and must still be the file that was walked (same inode and size) and unchanged by the end
 * of its read (same size and modification time); otherwise `source_changed`. Only when every
 * file has passed is anything written, all at once.
 *
 * @throws ImportRefusedError with one of the codes in docs/import.md
 */
export async function copySkillFolder(
  sourceFolder: string,
  targetFolder: string,
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
  options: FolderCopyOptions = {},
): Promise<ImportResult> {
  const root = await stat(sourceFolder);
  if (!root.isDirectory())
    throw new ImportRefusedError("not_a_folder", `${printable(sourceFolder)} is not a folder`, {
      path: printable(sourceFolder),
    });
  const fileSet = new SkillFileSet(limits);
  const walked = await walkFolder(sourceFolder, fileSet, limits);
  await options.onWalked?.({
    files: walked.size,
    bytes: [...walked.values()].reduce((total, entry) => total + entry.size, 0),
  });
  for (const [path, walkedStats] of walked) {
    const read = await readUnchanged(join(sourceFolder, path), path, walkedStats, fileSet);
    fileSet.addFile(path, read, (walkedStats.mode & 0o111) !== 0);
  }
  const rooted = rootSkillFiles(fileSet.files, { allowTopFolder: false });
  await writeSkillFolder(rooted.files, targetFolder);
  return {
    files: [...rooted.files.keys()].sort(),
    totalBytes: fileSet.totalBytes,
    strippedFolder: undefined,
  };
}

/** Walks the tree breadth first; returns the files with what `lstat` said of them, in walk order. */
async function walkFolder(
  sourceFolder: string,
  fileSet: SkillFileSet,
  limits: ImportLimits,
): Promise<Map<string, Stats>> {
  const files = new Map<string, Stats>();
  const maxEntries = maxZipEntries(limits);
  let entries = 0;
  const pending: string[] = [""];
  for (let folder = pending.shift(); folder !== undefined; folder = pending.shift()) {
    const names = (await readdir(join(sourceFolder, folder))).sort();
    for (const name of names) {
      entries += 1;
      if (entries > maxEntries)
        throw new ImportRefusedError("too_many_files", `the folder holds more than ${maxEntries} entries`, {
          limit: maxEntries,
          actual: entries,
        });
      const path = normaliseEntryPath(folder === "" ? name : `${folder}/${name}`).path;
      const entry = await lstat(join(sourceFolder, path));
      refuseUnsupported(path, entry);
      if (entry.isDirectory()) {
        fileSet.addFolder(path);
        pending.push(path);
      } else {
        fileSet.reserveFile(path, entry.size);
        files.set(path, entry);
      }
    }
  }
  return files;
}

/** Refuses links, special files, hard links and modes a skill never needs, as a zip's entries are. */
function refuseUnsupported(path: string, entry: Stats): void {
  if (entry.isSymbolicLink())
    throw new ImportRefusedError("symlink_not_allowed", `${path} is a symbolic link; links are refused`, {
      path,
    });
  for (const [matches, kind] of SPECIAL_KINDS)
    if (matches(entry))
      throw new ImportRefusedError("unsupported_entry", `${path} is ${kind}, not a file or folder`, { path });
  if ((entry.mode & 0o7000) !== 0)
    throw new ImportRefusedError("unsupported_entry", `${path} has a setuid, setgid or sticky bit`, { path });
  if (entry.isFile() && entry.nlink > 1)
    throw new ImportRefusedError(
      "unsupported_entry",
      `${path} is a hard link (${entry.nlink} names for one file); copy it instead`,
      { path },
    );
}

/**
 * Reads one file, refusing it unless it is still the file that was walked and nothing
 * changed it while it was read. `O_NOFOLLOW` refuses a link swapped in since the walk;
 * `O_NONBLOCK` keeps a FIFO swapped in from blocking the open (it is then refused by type).
 */
async function readUnchanged(
  absolute: string,
  path: string,
  walked: Stats,
  fileSet: SkillFileSet,
): Promise<Buffer> {
  const changed = (why: string): never => {
    throw new ImportRefusedError(
      "source_changed",
      `${path} changed while it was imported (${why}); try again`,
      {
        path,
      },
    );
  };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP")
      throw new ImportRefusedError(
        "symlink_not_allowed",
        `${path} became a symbolic link; links are refused`,
        {
          path,
        },
      );
    return changed(code === "ENOENT" ? "it was removed" : (code ?? "it could not be opened"));
  }
  try {
    const before = await handle.stat();
    if (!before.isFile() || before.ino !== walked.ino || before.dev !== walked.dev)
      changed("it was replaced by another file");
    if (before.size !== walked.size || before.mtimeMs !== walked.mtimeMs) changed("its size or time changed");
    fileSet.checkFileSize(path, before.size);
    // One byte more than expected is read, so a file that grew is caught even if its stamp did not move.
    const buffer = Buffer.alloc(before.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    const after = await handle.stat();
    if (length !== before.size || after.size !== before.size || after.mtimeMs !== before.mtimeMs)
      changed("it was written to while it was read");
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
