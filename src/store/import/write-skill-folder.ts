import { constants } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, readdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { InvalidArgumentError } from "../../core/errors.js";
import type { ImportedFile } from "./skill-file-set.js";

/**
 * Writes checked files into `targetFolder` all at once or not at all. The files go into a
 * private temporary folder beside the target (same parent, so the same file system), which
 * then replaces the target with one rename. On any failure the temporary folder is removed
 * and the target is left exactly as it was.
 *
 * The target must be absent or an empty folder (the store's fresh staging folder); anything
 * else is a caller error. Files are written 0644, or 0755 when marked executable; empty
 * folders are not created.
 *
 * @throws InvalidArgumentError when the target is not absent or empty
 */
export async function writeSkillFolder(
  files: ReadonlyMap<string, ImportedFile>,
  targetFolder: string,
): Promise<void> {
  const target = resolve(targetFolder);
  const targetMode = await emptyFolderMode(target);
  const temporary = await mkdtemp(join(dirname(target), `.${basename(target)}.unpack-`));
  try {
    for (const [path, file] of files) {
      const destination = resolve(temporary, path);
      // The paths were normalised already; this guards the invariant, not the input.
      if (!destination.startsWith(temporary + sep)) {
        throw new InvalidArgumentError("files", `${path} resolves outside the folder`);
      }
      await mkdir(dirname(destination), { recursive: true, mode: 0o755 });
      await writeFile(destination, file.bytes, {
        flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
        mode: file.executable ? 0o755 : 0o644,
      });
    }
    await chmod(temporary, targetMode ?? 0o755);
    await moveOnto(temporary, target, targetMode !== undefined);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}

/** The mode of the target when it is an empty folder, `undefined` when it is absent. */
async function emptyFolderMode(target: string): Promise<number | undefined> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (!stats.isDirectory()) throw new InvalidArgumentError("targetFolder", `${target} is not a folder`);
  if ((await readdir(target)).length > 0) {
    throw new InvalidArgumentError("targetFolder", `${target} must be empty before an import`);
  }
  return stats.mode & 0o777;
}

/**
 * POSIX rename replaces an empty folder atomically. Where the platform refuses that
 * (Windows), the empty target is removed first, which leaves a short window without it.
 */
async function moveOnto(source: string, target: string, targetExists: boolean): Promise<void> {
  try {
    await rename(source, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!targetExists || (code !== "EEXIST" && code !== "ENOTEMPTY" && code !== "EPERM")) throw error;
    await rmdir(target);
    await rename(source, target);
  }
}
