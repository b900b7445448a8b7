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

/** What kind of source an import string names: a GitHub address, a folder on this machine, or a zip file. */
export type ImportSourceKind = "github" | "folder" | "zip";

/**
 * The kind of `source` an import reads: an `http(s)://` address is GitHub's (its form is
 * checked by {@link importGithub}: `invalid_github_url`), an existing folder is copied,
 * anything else is read as a zip file. Every surface that takes an import source decides
 * with this, so the CLI and the server never disagree about what a source is.
 */
export function importSourceKind(source: string): ImportSourceKind {
  if (/^https?:\/\//i.test(source)) return "github";
  return isLocalFolder(source) ? "folder" : "zip";
}

/** Options of {@link importSkillSource}: the replace flag, and how GitHub is reached for a GitHub address. */
export interface SkillSourceImportOptions extends ReplaceOption {
  readonly github?: GithubImportOptions;
}

/**
 * Imports `source` (a zip file, a folder on this machine, or a GitHub folder address) by its
 * kind ({@link importSourceKind}) as a new, disabled skill; with `replace`, in place of the
 * stored skill of its name.
 */
export async function importSkillSource(
  store: Store,
  source: string,
  options: SkillSourceImportOptions = {},
): Promise<ChangeResult & { readonly kind: ImportSourceKind }> {
  const replace = { replace: options.replace === true };
  const kind = importSourceKind(source);
  const result =
    kind === "github"
      ? await importGithub(store, source, { ...(options.github ?? {}), ...replace })
      : kind === "folder"
        ? await importFolder(store, source, replace)
        : await importZip(store, source, replace);
  return { ...result, kind };
}

/** The GitHub API root an import uses when none is configured. */
export const DEFAULT_GITHUB_API = "https://api.github.com";

/**
 * How the processes of this machine reach GitHub, from their environment:
 * `SKILLGATE_GITHUB_API` (the API root, for GitHub Enterprise; default
 * {@link DEFAULT_GITHUB_API}) and `GITHUB_TOKEN` (private repositories, a higher rate limit).
 * The CLI's `store import` and the server's GitHub import read the same two variables.
 */
export function githubOptionsFromEnvironment(environment: Readonly<Record<string, string | undefined>>): {
  readonly apiBaseUrl: string;
  readonly token?: string;
} {
  const apiBaseUrl = environment.SKILLGATE_GITHUB_API || DEFAULT_GITHUB_API;
  const token = environment.GITHUB_TOKEN;
  return { apiBaseUrl, ...(token ? { token } : {}) };
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
