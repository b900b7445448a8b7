import { mkdir, readdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { FOLDER_MODE, uniqueSuffix } from "../core/durable-fs.js";
import { removeTree } from "../core/remove-tree.js";
import { StoreArgumentError } from "./errors.js";
import { STAGING_FOLDER } from "./journal.js";

/**
 * Staging folders: `<data>/skills/.staging/<pid>-<random>/`. A skill is prepared there
 * (written, checked, hashed) and then moved into place by one rename, which is atomic
 * because the folder is on the same file system as the skills. The pid in the name tells
 * the next open whether the folder is still being filled: a folder whose process is gone
 * (or, for this process, that no live operation holds) is a leftover.
 */

/** Staging folders this process created and has not consumed or discarded yet. */
const active = new Set<string>();

/** Creates an empty staging folder below `store` and records it as in use by this process. */
export async function createStaging(store: string): Promise<string> {
  const parent = join(store, STAGING_FOLDER);
  await mkdir(parent, { recursive: true, mode: FOLDER_MODE });
  const folder = join(parent, uniqueSuffix());
  await mkdir(folder, { mode: FOLDER_MODE });
  active.add(folder);
  return folder;
}

/** Removes a staging folder and forgets it. */
export async function discardStaging(folder: string): Promise<void> {
  removeTree(folder);
  active.delete(folder);
}

/** Forgets a staging folder that was renamed into place. */
export function consumedStaging(folder: string): void {
  active.delete(folder);
}

/**
 * Checks that `folder` is a staging folder of `store` (`<store>/.staging/<pid>-<random>`,
 * compared after resolving) and returns its absolute path; `invalid_argument` otherwise.
 */
export function checkStagingFolder(store: string, folder: string): string {
  const absolute = resolve(folder);
  if (dirname(absolute) !== join(store, STAGING_FOLDER) || !/^\d+-[0-9a-f]{12}$/.test(basename(absolute))) {
    throw new StoreArgumentError(
      "stagedFolder",
      `${folder} is not a staging folder of this store; get one from createStagingFolder()`,
    );
  }
  return absolute;
}

/** Staging folders below `store` that no live operation holds. */
export async function leftoverStaging(store: string): Promise<string[]> {
  const parent = join(store, STAGING_FOLDER);
  let names: string[];
  try {
    names = await readdir(parent);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names.map((name) => join(parent, name)).filter((folder) => !inUse(folder));
}

/**
 * A folder is in use when it is an active staging folder of this process, or a helper
 * folder named after one (`.<id>.<anything>`, as an importer makes beside its target), or
 * belongs to another process that is still running.
 */
function inUse(folder: string): boolean {
  if (active.has(folder)) return true;
  const match = /^\.?((\d+)-[0-9a-f]{12})(?:$|\.)/.exec(basename(folder));
  if (match === null) return false;
  if (active.has(join(dirname(folder), match[1] as string))) return true;
  const pid = Number(match[2]);
  // Our own pid with no live operation: a leftover of an earlier process that had the same pid.
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
