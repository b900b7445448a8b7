import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { lockIsStale } from "../../core/file-lock.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { QueueWorkerInfo } from "../contract.js";
import { interruptedAnswer } from "../request-shape.js";
import { parseRequestFileName, type QueueLayout, responseFile } from "./layout.js";

/**
 * The workers' folders under `queue/workers/`: who is alive, what each holds, and the sweep
 * that answers a dead worker's claims `interrupted` (DESIGN.md invariant 8). Any worker and
 * the controller sweep; two sweeping at once is harmless, since an answer is written
 * exclusively and a removed claim is simply gone.
 */

/** A worker whose lock was not refreshed for this many heartbeats is judged dead. */
export const HEARTBEATS_BEFORE_DEAD = 3;
/** A worker folder without a lock, younger than this, is one being set up. */
const SETUP_GRACE_MS = 10_000;

/** The files of one worker folder. */
export interface WorkerFolder {
  readonly folder: string;
  readonly lock: string;
  readonly info: string;
  readonly claimed: string;
}

/** The files of the worker folder `name` (a folder name, unique per worker process). */
export function workerFolder(layout: QueueLayout, name: string): WorkerFolder {
  const folder = join(layout.workers, name);
  return {
    folder,
    lock: join(folder, "lock"),
    info: join(folder, "info.json"),
    claimed: join(folder, "claimed"),
  };
}

/** The folders under `queue/workers/` (none when the queue was never used). */
export function workerFolders(layout: QueueLayout): WorkerFolder[] {
  return names(layout.workers).map((name) => workerFolder(layout, name));
}

/**
 * True while the worker's lock is fresh: its process alive (same host) and the lock refreshed
 * within `staleMs` or 3 of the worker's own heartbeats, whichever is longer, so an observer
 * with a shorter heartbeat never judges a slower worker dead.
 */
export function workerIsAlive(worker: WorkerFolder, staleMs: number): boolean {
  const stats = lstatSync(worker.lock, { throwIfNoEntry: false });
  if (stats === undefined) {
    const folder = lstatSync(worker.folder, { throwIfNoEntry: false });
    // Set up but not yet locked: alive for a short grace.
    return (
      folder !== undefined &&
      Date.now() - folder.mtimeMs < SETUP_GRACE_MS &&
      names(worker.claimed).length === 0
    );
  }
  const declared = readWorkerInfo(worker)?.heartbeatMs;
  const limit = declared !== undefined ? Math.max(staleMs, declared * HEARTBEATS_BEFORE_DEAD) : staleMs;
  return !lockIsStale(worker.lock, limit);
}

/** What a worker last wrote about itself, or undefined. */
export function readWorkerInfo(worker: WorkerFolder): QueueWorkerInfo | undefined {
  const text = readSmallFile(worker.info, 4096);
  if (text === undefined) return undefined;
  try {
    const value = parseJsonSafely(text) as Partial<QueueWorkerInfo> | null;
    if (value === null || typeof value !== "object" || typeof value.name !== "string") return undefined;
    return {
      name: value.name,
      host: typeof value.host === "string" ? value.host : "",
      ...(typeof value.pid === "number" ? { pid: value.pid } : {}),
      concurrency: typeof value.concurrency === "number" ? value.concurrency : 0,
      running: typeof value.running === "number" ? value.running : 0,
      lastSeen: typeof value.lastSeen === "string" ? value.lastSeen : "",
      stopping: value.stopping === true,
      ...(typeof value.heartbeatMs === "number" && value.heartbeatMs > 0
        ? { heartbeatMs: value.heartbeatMs }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/** Writes a worker's info file (atomically: a reader sees the old or the new). */
export function writeWorkerInfo(worker: WorkerFolder, info: QueueWorkerInfo): void {
  writeFileAtomicallySync(worker.info, `${JSON.stringify(info)}\n`);
}

/** The request files a worker holds (names only). */
export function claimedNames(worker: WorkerFolder): string[] {
  return names(worker.claimed).filter((name) => parseRequestFileName(name) !== undefined);
}

/**
 * Answers every claim of every dead worker `interrupted` (unless already answered), removes the
 * claims and then the folder. Returns the request ids answered here. Claims are never put back
 * into `requests/`: a request once claimed is never handed out again.
 */
export function sweepDeadWorkers(layout: QueueLayout, staleMs: number, except?: string): string[] {
  const answered: string[] = [];
  for (const worker of workerFolders(layout)) {
    if (worker.folder === except || workerIsAlive(worker, staleMs)) continue;
    const info = readWorkerInfo(worker);
    for (const name of names(worker.claimed)) {
      const parsed = parseRequestFileName(name);
      if (parsed !== undefined) {
        const answer = interruptedAnswer({ requestId: parsed.requestId }, info?.name);
        const written = writeFileAtomicallySync(
          responseFile(layout, parsed.requestId),
          JSON.stringify(answer),
          {
            exclusive: true,
          },
        );
        if (written) answered.push(parsed.requestId);
      }
      removeQuietly(join(worker.claimed, name));
    }
    for (const leftover of [worker.info, worker.lock]) removeQuietly(leftover);
    for (const name of names(worker.folder))
      if (name.startsWith(".tmp-")) removeQuietly(join(worker.folder, name));
    for (const folder of [worker.claimed, worker.folder]) {
      try {
        rmdirSync(folder);
      } catch {
        // Not empty (a worker appeared under the same name) or gone: left for the next sweep.
      }
    }
  }
  return answered;
}

/** The entries of a folder; none when it does not exist. */
export function names(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Removes a file; already gone is fine. */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
