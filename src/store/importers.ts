import { existsSync } from "node:fs";
import { basename } from "node:path";
import { NotFoundError } from "../core/errors.js";
import {
  DEFAULT_IMPORT_LIMITS,
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

/** Options of {@link importZip}. */
export interface ZipImportOptions {
  /** Where the archive came from (a file name), recorded in index.json. */
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
    return store.installFolder(folder, { source: "zip", origin });
  });
}

/** Imports the skill at `https://github.com/OWNER/REPO/tree/REF/PATH` as a new, disabled skill. */
export async function importGithub(
  store: Store,
  url: string,
  options: GithubImportOptions = {},
): Promise<ChangeResult> {
  return staged(store, async (folder) => {
    await importGithubFolder(url, folder, options);
    return store.installFolder(folder, { source: "github", origin: url });
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
