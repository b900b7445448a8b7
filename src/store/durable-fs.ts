import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, rename, rm, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * File operations that survive a crash or power loss at any instant: a file is written to a
 * temporary name in its own folder, flushed, renamed over the target, and the folder is
 * flushed so the rename itself is durable. Readers see the old content or the new, never a
 * mix. Everything the store writes goes through here.
 */

/** Mode of every file the store writes: the data folder is private to its owner. */
export const FILE_MODE = 0o600;
/** Mode of every folder the store creates. */
export const FOLDER_MODE = 0o700;

/** Temporary files start with this prefix, so a leftover one is recognised and removed under the lock. */
export const TEMP_PREFIX = ".tmp-";

/** A unique-enough suffix for temporary and staging names: process id and 6 random bytes. */
export function uniqueSuffix(): string {
  return `${process.pid}-${randomBytes(6).toString("hex")}`;
}

/**
 * Flushes a folder's entries (creations, renames, removals) to disk. Platforms that cannot
 * open a folder for flushing (Windows) make this a no-op rather than a failure.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Writes a new file that must not exist yet (`wx`), flushed before it is closed. Used inside
 * a staging folder, whose own rename is what makes the content visible.
 */
export async function writeNewFile(path: string, content: string | Uint8Array): Promise<void> {
  const handle = await open(path, "wx", FILE_MODE);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` atomically with `content`: temporary file in the same folder, flush,
 * rename, flush the folder. On any failure the temporary file is removed and `path` keeps
 * its old content.
 */
export async function writeFileAtomically(path: string, content: string | Uint8Array): Promise<void> {
  const folder = dirname(path);
  const temporary = join(folder, `${TEMP_PREFIX}${basename(path)}-${uniqueSuffix()}`);
  try {
    await writeNewFile(temporary, content);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(folder);
}

/** Renames `from` to `to` (files or folders) and flushes both parent folders. */
export async function renameDurably(from: string, to: string): Promise<void> {
  await rename(from, to);
  await syncFolder(dirname(to));
  if (dirname(from) !== dirname(to)) await syncFolder(dirname(from));
}

/** Removes a file and flushes its folder; a file that is already gone is not an error. */
export async function removeFileDurably(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return;
  }
  await syncFolder(dirname(path));
}

/** Creates a folder (and its parents) with the store's folder mode. */
export async function makeFolder(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: FOLDER_MODE });
}

/** Removes a folder tree; nothing there is not an error. Not flushed: callers only remove garbage. */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Flushes files written by someone else (an importer) and every folder on their way, deepest
 * first, so a later rename publishes content that is already on disk.
 */
export async function syncTree(root: string, relativeFiles: readonly string[]): Promise<void> {
  const folders = new Set<string>([root]);
  for (const relative of relativeFiles) {
    const path = join(root, relative);
    const handle = await open(path, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    for (let folder = dirname(path); folder.length > root.length; folder = dirname(folder))
      folders.add(folder);
  }
  for (const folder of [...folders].sort((left, right) => right.length - left.length))
    await syncFolder(folder);
}

/** True when something (a file, a folder, a link, even a broken one) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
