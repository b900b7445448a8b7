import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  unlinkSync,
} from "node:fs";
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

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows; there the type check after opening remains.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

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

/**
 * The text of a regular file of at most `limit` bytes, or undefined when it is missing, is
 * not a regular file (a symlink, a FIFO), is larger, or cannot be read.
 */
export function readSmallFile(path: string, limit: number): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size > limit) return undefined;
    // Read one byte past the limit: a file that grew after fstat is refused too.
    const buffer = Buffer.alloc(Math.min(stats.size, limit) + 1);
    let length = 0;
    for (;;) {
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > limit) return undefined;
    }
    return buffer.subarray(0, length).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
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
