import { lstatSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { TEMP_PREFIX, writeFileAtomicallySync } from "../core/durable-fs.js";
import { PathNotAllowedError } from "../core/errors.js";

/**
 * The approval queue's file operations, synchronous because each touches one small file and
 * callers (a CLI command, an approver) want a plain answer. The rules that keep the queue
 * safe across processes live here:
 *
 * - A file is written to a temporary name, flushed, then hard-linked to its real name (the
 *   one atomic write's exclusive mode). A link never replaces an existing name, so "create
 *   once" is atomic: exactly one of two writers wins, and readers never see a half-written file.
 * - A marker is claimed with the one file lock (core/file-lock.ts, an exclusive create that
 *   names its owner), never taken over: exactly one of two claimants wins.
 * - Reads open with `O_NOFOLLOW | O_NONBLOCK` and check the open file: a symbolic link, a
 *   FIFO, a device or a file over the size limit is refused, so nothing outside the folder
 *   is read and nothing blocks.
 */

/** Mode of the queue's folder: the data folder is private to its owner. */
export const QUEUE_FOLDER_MODE = 0o700;
/** Temporary files (the atomic write's) start with this prefix; leftovers of a crash are removed later. */
export const QUEUE_TEMP_PREFIX = TEMP_PREFIX;

/** What is at the queue's folder path. */
export type FolderState = "missing" | "folder" | "refused";

/** Whether `folder` is absent, a real folder, or something the queue refuses (a symlink, a file). */
export function folderState(folder: string): FolderState {
  try {
    const stats = lstatSync(folder);
    return stats.isDirectory() ? "folder" : "refused";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    return "refused";
  }
}

/** Creates the folder (and its parents) if needed; refuses a folder path that is not a real folder. */
export function ensureFolder(folder: string): void {
  if (folderState(folder) === "missing") mkdirSync(folder, { recursive: true, mode: QUEUE_FOLDER_MODE });
  if (folderState(folder) !== "folder") throw new PathNotAllowedError(folder, "a real folder");
}

/** Names of the regular files in `folder` (symlinks and folders left out); none when it is not a real folder. */
export function listFiles(folder: string): string[] {
  if (folderState(folder) !== "folder") return [];
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** True when something (of any kind) is at `path`. */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates `folder/name` with `content` if no such name exists: the one atomic write
 * (core/durable-fs.ts) in its exclusive mode. Returns false, changing nothing, when the name is taken.
 */
export function createFileOnce(folder: string, name: string, content: string): boolean {
  return writeFileAtomicallySync(join(folder, name), content, { exclusive: true });
}

/** Removes a file; one already gone (or never there) is not an error. */
export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove: either way nothing to do.
  }
}

/** Modification time of a regular file, or undefined. */
export function modifiedAt(path: string): number | undefined {
  try {
    const stats = lstatSync(path);
    return stats.isFile() ? stats.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}
