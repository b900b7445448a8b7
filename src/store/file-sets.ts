import { constants } from "node:fs";
import { lstat, mkdir, open, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { FOLDER_MODE, syncFolder, writeNewFile } from "../core/durable-fs.js";
import {
  SkillFileTooLargeError,
  SkillPathNotAllowedError,
  SkillTooLargeError,
  StoreArgumentError,
  TooManyFilesError,
} from "./errors.js";
import { checkFolderLimits } from "./folder-check.js";
import { MAX_EDITABLE_BYTES, MAX_FILE_BYTES, MAX_FILES, MAX_SKILL_BYTES } from "./limits.js";
import { checkPathSet, checkRelativePath, resolveInside } from "./paths.js";

/**
 * A skill's files in memory, keyed by relative path. Every write of the store builds the
 * complete new content of a skill as one of these (at most 5 MiB), writes it to a staging
 * folder and swaps that folder in: a skill on disk is always a whole version, never half.
 */
export type FileSet = Map<string, Uint8Array>;

/**
 * Checks text files given by a caller (path → content) and returns them as bytes: a plain
 * object, canonical paths, text without NUL, at most {@link MAX_EDITABLE_BYTES} each, at most
 * {@link MAX_FILES} of them. Nothing is read or written.
 */
export function checkTextFiles(files: unknown, argument: string): FileSet {
  if (typeof files !== "object" || files === null || Array.isArray(files))
    throw new StoreArgumentError(argument, `${argument} must map relative paths to text`);
  const paths = Object.keys(files);
  if (paths.length > MAX_FILES) throw new TooManyFilesError(paths.length, MAX_FILES);
  const result: FileSet = new Map();
  for (const path of paths) {
    checkRelativePath(path);
    const content = (files as Record<string, unknown>)[path];
    if (typeof content !== "string")
      throw new StoreArgumentError(argument, `${argument}["${path}"] must be text, not ${typeof content}`);
    if (content.includes("\u0000"))
      throw new SkillPathNotAllowedError(path, "the content holds a NUL character; only text can be edited");
    const bytes = Buffer.from(content, "utf8");
    if (bytes.length > MAX_EDITABLE_BYTES)
      throw new SkillFileTooLargeError(path, bytes.length, MAX_EDITABLE_BYTES);
    result.set(path, bytes);
  }
  checkPathSet(paths);
  return result;
}

/** Refuses a file set over the skill limits: {@link MAX_FILES} files, {@link MAX_FILE_BYTES} a file, {@link MAX_SKILL_BYTES} in all. */
export function checkFileSetLimits(files: FileSet): void {
  if (files.size > MAX_FILES) throw new TooManyFilesError(files.size, MAX_FILES);
  let total = 0;
  for (const [path, bytes] of files) {
    if (bytes.length > MAX_FILE_BYTES) throw new SkillFileTooLargeError(path, bytes.length, MAX_FILE_BYTES);
    total += bytes.length;
  }
  if (total > MAX_SKILL_BYTES) throw new SkillTooLargeError(total, MAX_SKILL_BYTES);
  checkPathSet([...files.keys()]);
}

/** Reads every file of a skill folder into memory, after checking the folder against every limit. */
export async function readFileSet(folder: string): Promise<FileSet> {
  const { files } = await checkFolderLimits(folder);
  const result: FileSet = new Map();
  for (const file of files) result.set(file.path, await readFile(join(folder, file.path)));
  return result;
}

/**
 * Writes a file set into an empty staging folder: every file flushed, then every folder
 * flushed (deepest first), so the later rename publishes content that is already on disk.
 */
export async function writeFileSet(staging: string, files: FileSet): Promise<void> {
  const folders = new Set<string>([staging]);
  for (const [path, bytes] of files) {
    const target = resolveInside(staging, path);
    const parent = dirname(target);
    if (!folders.has(parent)) {
      await mkdir(parent, { recursive: true, mode: FOLDER_MODE });
      for (let folder = parent; !folders.has(folder); folder = dirname(folder)) folders.add(folder);
    }
    await writeNewFile(target, bytes);
  }
  for (const folder of [...folders].sort((left, right) => right.length - left.length))
    await syncFolder(folder);
}

/**
 * Reads one file of a skill folder without following a link anywhere below the folder, at
 * most {@link MAX_FILE_BYTES}. Throws `not_found` (via ENOENT) for a missing file.
 */
export async function readOneFile(folder: string, path: string): Promise<Uint8Array> {
  const target = resolveInside(folder, path);
  // Every folder between the skill folder and the file must be a real folder, not a link.
  const segments = path.split("/");
  for (let length = 1; length < segments.length; length += 1) {
    const stats = await lstat(join(folder, ...segments.slice(0, length)));
    if (!stats.isDirectory()) throw new SkillPathNotAllowedError(path, "a folder on the way is not a folder");
  }
  const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      throw new SkillPathNotAllowedError(path, "it is a symbolic link");
    throw error;
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new SkillPathNotAllowedError(path, "it is not a regular file");
    if (stats.size > MAX_FILE_BYTES) throw new SkillFileTooLargeError(path, stats.size, MAX_FILE_BYTES);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
