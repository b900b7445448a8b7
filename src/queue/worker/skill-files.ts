import { lstatSync } from "node:fs";
import { SnapshotStore } from "../../runners/snapshot.js";
import { hashSkillFolder } from "../../skill/content-hash.js";

/** Where a worker finds a skill's files of one hash, or why it cannot. */
export type SkillFolderOutcome =
  | { readonly ok: true; readonly folder: string }
  | { readonly ok: false; readonly code: string; readonly text: string };

/**
 * How a worker gets a skill's verified files. The local backend's worker shares the
 * controller's data folder and uses its snapshots ({@link SnapshotSkillFiles}); a worker on
 * another host gets them over the node issue's skill sync.
 */
export interface WorkerSkillFiles {
  /** A folder whose files hash to `hash`, checked now; a mismatch is `skill_changed`. */
  folderFor(skill: string, hash: string): Promise<SkillFolderOutcome>;
}

/**
 * The controller's verified snapshots, `<data>/runs/snapshots/<hash>` (the router made it
 * before the queue runner was called), hashed again by the worker before each run: a
 * snapshot changed or swapped since it was made is refused, never run.
 */
export class SnapshotSkillFiles implements WorkerSkillFiles {
  readonly #snapshots: SnapshotStore;

  constructor(dataFolder: string) {
    this.#snapshots = new SnapshotStore({ dataFolder });
  }

  async folderFor(skill: string, hash: string): Promise<SkillFolderOutcome> {
    const folder = this.#snapshots.folderOf(hash);
    if (!/^[0-9a-f]{64}$/.test(hash) || lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true)
      return {
        ok: false,
        code: "skill_unavailable",
        text: `the worker has no copy of ${skill} at hash ${hash.slice(0, 8)}, so the script did not run; retry the call.`,
      };
    const again = hashSkillFolder(folder);
    if (again.hash !== hash)
      return {
        ok: false,
        code: "skill_changed",
        text: `the worker's copy of ${skill} does not match hash ${hash.slice(0, 8)} (it changed after it was approved), so the script did not run. Load the skill again and retry; the person may be asked again.`,
      };
    return { ok: true, folder };
  }
}
