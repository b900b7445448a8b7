import type { SkillCache } from "../../nodes/agent/skill-cache.js";
import type { SkillSync, SyncReport } from "../../nodes/agent/skill-sync.js";
import { hashSkillFolder } from "../../skill/content-hash.js";
import type { SkillFolderOutcome, WorkerSkillFiles } from "./skill-files.js";

/** Options of {@link SyncedSkillFiles}. */
export interface SyncedSkillFilesOptions {
  /** The node's sync (manifest signed by the controller, packages checked before unpacking). */
  readonly sync: SkillSync;
  /** Where that sync installs the verified copies. */
  readonly cache: SkillCache;
  /** Told about every sync this class started (a worker's log). */
  readonly onSync?: (report: SyncReport) => void;
}

/**
 * A remote worker's skill files (docs/queue.md, "Scaling out"): the copies the node issue's
 * SkillSync keeps for a node enrolled with `skillgate nodes add NAME --worker`, which the
 * controller offers its queue-mode skills. A request for a hash the worker does not hold yet
 * (the skill was edited and approved after the last sync) runs one sync first, joined by every
 * request that asks meanwhile; a hash still not held is refused `skill_unavailable`. The copy
 * is hashed again before every run, as on the controller: a copy changed on disk since it was
 * installed is refused `skill_changed`, never run.
 */
export class SyncedSkillFiles implements WorkerSkillFiles {
  readonly #options: SyncedSkillFilesOptions;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SyncedSkillFilesOptions) {
    this.#options = options;
  }

  /** Syncs now (joining a sync already running); never throws for a refused manifest or package. */
  async sync(): Promise<SyncReport> {
    const report = await this.#options.sync.sync();
    this.#options.onSync?.(report);
    return report;
  }

  /** Syncs every `intervalMs` as well (a node agent's minute), so a run rarely waits for one. */
  startPeriodicSync(intervalMs: number): void {
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      this.sync().catch(() => {});
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops the periodic sync. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async folderFor(skill: string, hash: string): Promise<SkillFolderOutcome> {
    let folder = this.#options.cache.folderOf(skill, hash);
    let report: SyncReport | undefined;
    if (folder === undefined) {
      report = await this.sync();
      folder = this.#options.cache.folderOf(skill, hash);
    }
    if (folder === undefined)
      return {
        ok: false,
        code: "skill_unavailable",
        text: `the worker has no verified copy of ${skill} at hash ${hash.slice(0, 8)} from the controller${syncProblem(report)}, so the script did not run; retry the call.`,
      };
    if (hashSkillFolder(folder).hash !== hash)
      return {
        ok: false,
        code: "skill_changed",
        text: `the worker's copy of ${skill} does not match hash ${hash.slice(0, 8)} (it changed on the worker after it was installed), so the script did not run.`,
      };
    return { ok: true, folder };
  }
}

function syncProblem(report: SyncReport | undefined): string {
  if (report === undefined) return "";
  if (report.manifestError !== undefined) return ` (its sync failed: ${report.manifestError.code})`;
  const failed = report.failed[0];
  return failed !== undefined ? ` (its sync failed: ${failed.code})` : "";
}
