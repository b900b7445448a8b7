import { existsSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { NotFoundError } from "../core/errors.js";
import {
  copySkillFolder,
  DEFAULT_IMPORT_LIMITS,
  type FolderCopyOptions,
  type GithubImportOptions,
  type ImportLimits,
  importGithubFolder,
  type UploadSource,
  unpackSkillZip,
} from "./import/index.js";
import type { Store } from "./store.js";
import type { ChangeResult } from "./store-types.js";

/**
 * Imports into the store: stage, unpack or download, then one checked install. Whatever
 * fails, the staging folder is discarded and the store is as it was. Imported skills are
 * saved disabled; the owner enables one with the hash they reviewed.
 */

/** Options every importer takes. */
export interface ReplaceOption {
  /**
   * Put the import in place of the stored skill of its name (which must exist) instead of
   * refusing a taken name: the new version is saved disabled, and enabling it needs its new
   * hash (see {@link Store.installFolder}).
   */
  readonly replace?: boolean;
}

/** Options of {@link importZip}. */
export interface ZipImportOptions extends ReplaceOption {
  /** Where the archive came from (a file name), recorded in index.json. */
  readonly origin?: string;
  readonly limits?: ImportLimits;
}

/** Options of {@link importFolder}. */
export interface FolderImportOptions extends ReplaceOption, FolderCopyOptions {
  /** Where the folder came from, recorded in index.json; default its absolute path. */
  readonly origin?: string;
  readonly limits?: ImportLimits;
}

/** Imports a zip archive (a path, a buffer or a stream) as a new, disabled skill. */
export async function importZip(
  store: Store,
  source: UploadSource,
  options: ZipImportOptions = {},
): Promise<ChangeResult> {
  if (typeof source === "string" && !existsSync(source)) throw new NotFoundError("file", source);
  const origin = options.origin ?? (typeof source === "string" ? basename(source) : "upload.zip");
  return staged(store, async (folder) => {
    await unpackSkillZip(source, folder, options.limits ?? DEFAULT_IMPORT_LIMITS);
    return store.installFolder(folder, { source: "zip", origin, replace: options.replace === true });
  });
}

/**
 * Imports a skill from a folder on this machine (its top holds SKILL.md) as a new, disabled
 * skill, with the checks a zip gets (see {@link copySkillFolder}). The source is only read.
 */
export async function importFolder(
  store: Store,
  sourceFolder: string,
  options: FolderImportOptions = {},
): Promise<ChangeResult> {
  if (!existsSync(sourceFolder)) throw new NotFoundError("folder", sourceFolder);
  const origin = options.origin ?? resolve(sourceFolder);
  return staged(store, async (folder) => {
    await copySkillFolder(
      sourceFolder,
      folder,
      options.limits ?? DEFAULT_IMPORT_LIMITS,
      options.onWalked !== undefined ? { onWalked: options.onWalked } : {},
    );
    return store.installFolder(folder, { source: "folder", origin, replace: options.replace === true });
  });
}

/** True when `source` names a folder on this machine (an import then copies it rather than unzipping it). */
export function isLocalFolder(source: string): boolean {
  try {
    return statSync(source).isDirectory();
  } catch {
    return false;
  }
}

/** Imports the skill at `https://github.com/OWNER/REPO/tree/REF/PATH` as a new, disabled skill. */
export async function importGithub(
  store: Store,
  url: string,
  options: GithubImportOptions & ReplaceOption = {},
): Promise<ChangeResult> {
  return staged(store, async (folder) => {
    await importGithubFolder(url, folder, options);
    return store.installFolder(folder, { source: "github", origin: url, replace: options.replace === true });
  });
}

async function staged(store: Store, work: (folder: string) => Promise<ChangeResult>): Promise<ChangeResult> {
  const folder = await store.createStagingFolder();
  try {
    return await work(folder);
  } catch (error) {
    await store.discardStagingFolder(folder);
    throw error;
  }
}
