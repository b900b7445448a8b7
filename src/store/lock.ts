import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { lock } from "proper-lockfile";
import { StoreBusyError } from "./errors.js";

/**
 * The store's write lock: one writer at a time, across threads of this process and across
 * processes (a CLI and a server may share a store). Inside a process, callers queue on a
 * promise chain; across processes, proper-lockfile makes a `.lock` folder (mkdir is atomic)
 * and keeps its modification time fresh every second. A process that dies holding it leaves
 * a folder that stops being refreshed; after `staleMs` another process takes it over.
 */

/** The lock folder's name inside `<data>/skills/`. */
export const LOCK_NAME = ".lock";
/** Default time after which an unrefreshed lock is taken over, in milliseconds. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
/** Default time a writer waits for the lock before `store_busy`, in milliseconds. */
export const DEFAULT_LOCK_WAIT_MS = 60_000;
/** proper-lockfile refuses a stale time below 2 s. */
const MIN_STALE_MS = 2_000;
/** The holder refreshes every second, whatever the stale time, so any stale time ≥ 2 s is safe. */
const REFRESH_MS = 1_000;

/** How the lock behaves; both values apply to this process only. */
export interface LockTiming {
  readonly staleMs: number;
  readonly waitMs: number;
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` while holding the store's lock, after every earlier `work` of this process on
 * the same folder has finished.
 */
export async function withStoreLock<Result>(
  folder: string,
  timing: LockTiming,
  work: () => Promise<Result>,
): Promise<Result> {
  const previous = queues.get(folder) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => holdLock(folder, timing, work));
  const tail = run.catch(() => undefined);
  queues.set(folder, tail);
  try {
    return await run;
  } finally {
    if (queues.get(folder) === tail) queues.delete(folder);
  }
}

async function holdLock<Result>(
  folder: string,
  timing: LockTiming,
  work: () => Promise<Result>,
): Promise<Result> {
  const release = await acquire(folder, timing);
  try {
    return await work();
  } finally {
    await release().catch(() => undefined);
  }
}

async function acquire(folder: string, timing: LockTiming): Promise<() => Promise<void>> {
  const started = Date.now();
  let delay = 5;
  for (;;) {
    try {
      return await lock(folder, {
        lockfilePath: join(folder, LOCK_NAME),
        realpath: false,
        stale: Math.max(timing.staleMs, MIN_STALE_MS),
        update: REFRESH_MS,
        retries: 0,
        // The default throws from a timer and ends the process. A lock is lost only when this
        // process stalled for longer than the stale time, and then another writer may overlap
        // with it; the stale time (10 s by default) is far longer than any write takes.
        onCompromised: () => undefined,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
      const waited = Date.now() - started;
      if (waited >= timing.waitMs) throw new StoreBusyError(folder, waited, { cause: error });
      // Jitter keeps two waiting processes from polling in step.
      await sleep(delay + Math.floor(Math.random() * delay));
      delay = Math.min(delay * 2, 100);
    }
  }
}
