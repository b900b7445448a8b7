import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { exists, TEMP_PREFIX } from "../core/durable-fs.js";
import { removeTree } from "../core/remove-tree.js";
import {
  INDEX_FILE,
  readIndex,
  readRevisionFile,
  type StoreIndex,
  writeIndexFile,
  writeRevisionFile,
} from "./index-file.js";
import { recoverJournal, TRASH_FOLDER } from "./journal.js";
import type { ReconcileFinding } from "./reconcile.js";
import { leftoverStaging } from "./staging.js";

/** What a locked operation starts from: the index as on disk now, and what preparing it cleaned up. */
export interface WriteContext {
  readonly index: StoreIndex;
  readonly cleaned: readonly ReconcileFinding[];
}

/**
 * Brings the store to a clean state before any locked work: an interrupted change is
 * finished or rolled back from the journal, the revision file is caught up with
 * index.json, and leftovers of the store's own interrupted writes are removed: trash,
 * staging folders of processes that are gone, temporary files. Each is reported.
 */
export async function prepareStore(folder: string): Promise<WriteContext> {
  const cleaned: ReconcileFinding[] = [];
  const index = await readIndex(folder);
  // A store that was never written gets an empty index.json, so the file always exists.
  if (index.revision === 0 && !(await exists(join(folder, INDEX_FILE)))) await writeIndexFile(folder, index);
  const recovery = await recoverJournal(folder, index.revision);
  if (recovery !== undefined) {
    cleaned.push({
      kind: "interrupted_change",
      name: recovery.name,
      path: join(folder, recovery.name),
      message: `an interrupted ${recovery.kind} of ${recovery.name} was ${
        recovery.outcome === "finished" ? "finished" : "rolled back"
      }`,
    });
  }
  if ((await readRevisionFile(folder)) !== index.revision) await writeRevisionFile(folder, index.revision);
  for (const name of await listOrEmpty(join(folder, TRASH_FOLDER))) {
    const path = join(folder, TRASH_FOLDER, name);
    removeTree(path);
    cleaned.push({
      kind: "leftover_trash",
      path,
      message: `removed ${name}, left over from a change`,
      removed: true,
    });
  }
  for (const path of await leftoverStaging(folder)) {
    removeTree(path);
    cleaned.push({
      kind: "leftover_staging",
      path,
      message: "removed a staging folder of a write that did not finish",
      removed: true,
    });
  }
  for (const name of await listOrEmpty(folder)) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const path = join(folder, name);
    removeTree(path);
    cleaned.push({
      kind: "leftover_temporary",
      path,
      message: `removed temporary file ${name}`,
      removed: true,
    });
  }
  return { index, cleaned };
}

async function listOrEmpty(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
