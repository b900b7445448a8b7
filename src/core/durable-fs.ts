import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * File operations that survive a crash or power loss at any instant: a file is written to a
 * temporary name in its own folder, flushed, renamed over the target, and the folder is
 * flushed so the rename itself is durable. Readers see the old content or the new, never a
 * mix. Everything the store writes goes through here, and the approval queue's files too.
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
 * Error codes with which a platform says "a folder cannot be opened or flushed here"
 * (Windows: EISDIR, EPERM; some file systems: EINVAL, EBADF, ENOTSUP). Flushing a folder is
 * then not possible at all, so it is skipped; every other error is a real failure.
 */
const FOLDER_FLUSH_UNSUPPORTED: ReadonlySet<string> = new Set([
  "EISDIR",
  "EPERM",
  "EINVAL",
  "EBADF",
  "ENOTSUP",
]);

/**
 * True when `error` says the platform cannot flush a folder (see {@link syncFolder}), so
 * the flush is skipped instead of failing.
 */
export function isFolderFlushUnsupported(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && FOLDER_FLUSH_UNSUPPORTED.has(code);
}

/**
 * Flushes a folder's entries (creations, renames, removals) to disk, so they survive a
 * power loss. The one rule (docs/architecture.md, "File safety"): a platform that cannot
 * flush a folder ({@link isFolderFlushUnsupported}) makes this a no-op; any other error (a
 * missing folder, EIO, EACCES) is thrown, because a change that cannot be made durable must
 * not be reported as done.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch (error) {
    if (!isFolderFlushUnsupported(error)) throw error;
  } finally {
    await handle?.close();
  }
}

/** {@link syncFolder} for synchronous callers, with the same rule. */
export function syncFolderSync(folder: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(folder, "r");
    fsyncSync(descriptor);
  } catch (error) {
    if (!isFolderFlushUnsupported(error)) throw error;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
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

/** Where a write to `path` is prepared: a temporary name in the same folder, so the rename is atomic. */
function temporaryPathFor(path: string): string {
  return join(dirname(path), `${TEMP_PREFIX}${basename(path)}-${uniqueSuffix()}`);
}

/**
 * Replaces `path` atomically with `content`: temporary file in the same folder, flush,
 * rename, flush the folder. The one rule (docs/architecture.md, "File safety"): readers see
 * the old content or the new, never a mix; on any failure the temporary file is removed,
 * `path` keeps its old content and the error is thrown as it is; the folder flush follows
 * {@link syncFolder}'s rule.
 */
export async function writeFileAtomically(path: string, content: string | Uint8Array): Promise<void> {
  const temporary = temporaryPathFor(path);
  try {
    await writeNewFile(temporary, content);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}

/** How {@link writeFileAtomicallySync} treats a file already at the path. */
export interface AtomicWriteOptions {
  /**
   * `false` (the default) replaces it, as {@link writeFileAtomically} does. `true` writes only
   * when no file has the name: the temporary file is hard-linked to it, which fails if the
   * name exists, so of two writers exactly one wins; the loser gets `false` and nothing changed.
   */
  readonly exclusive?: boolean;
  /** The new file's mode; {@link FILE_MODE} unless given (0o400 for files nobody may change). */
  readonly mode?: number;
}

/**
 * {@link writeFileAtomically} for synchronous callers (the approval queue), with the same
 * steps and rule, and an exclusive mode for files created once. Returns false only when
 * `exclusive` is set and the name was taken.
 */
export function writeFileAtomicallySync(
  path: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): boolean {
  const temporary = temporaryPathFor(path);
  try {
    const descriptor = openSync(temporary, "wx", options.mode ?? FILE_MODE);
    try {
      writeFileSync(descriptor, content);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    if (options.exclusive === true) {
      if (!linkOnce(temporary, path)) return false;
    } else {
      renameSync(temporary, path);
    }
  } finally {
    removeQuietly(temporary);
  }
  syncFolderSync(dirname(path));
  return true;
}

/** Links `temporary` to `target` unless `target` exists; false when it does. */
function linkOnce(temporary: string, target: string): boolean {
  try {
    linkSync(temporary, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // File systems without hard links: a rename, which is atomic for readers but only
    // checked, not guaranteed, to leave an existing name alone.
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EOPNOTSUPP") throw error;
    if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) return false;
    renameSync(temporary, target);
    return true;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Renamed into place, or never made.
  }
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

/** Opens for reading without following a final link or waiting on a FIFO. */
const SMALL_FILE_READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The text of a regular file of at most `limit` bytes, or undefined when it is missing, is
 * not a regular file (a symlink, a FIFO), is larger, or cannot be read.
 */
export function readSmallFile(path: string, limit: number): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, SMALL_FILE_READ_FLAGS);
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
