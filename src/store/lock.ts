import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type HeldLock, tryLock } from "../core/file-lock.js";
import { StoreBusyError } from "./errors.js";

/**
 * The store's write lock: one writer at a time, across threads of this process and across
 * processes (a CLI and a server may share a store). Inside a process, callers queue on a
 * promise chain; across processes, the one file lock (core/file-lock.ts) makes a `.lock` file
 * naming this process and refreshes it every second while held. A process that dies holding
 * it is taken over at once (its pid has ended); one that stalls is taken over once the lock
 * has not been refreshed for `staleMs`.
 */

/** The lock folder's name inside `<data>/skills/`. */
export const LOCK_NAME = ".lock";
/** Default time after which an unrefreshed lock is taken over, in milliseconds. */
export const DEFAULT_LOCK_STALE_MS = 10_000;
/** Default time a writer waits for the lock before `store_busy`, in milliseconds. */
export const DEFAULT_LOCK_WAIT_MS = 60_000;
/** Below 2 s, a holder busy for longer than its refresh interval could be taken over. */
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
    const held = tryLock(join(folder, LOCK_NAME), { staleMs: Math.max(timing.staleMs, MIN_STALE_MS) });
    if (held !== undefined) return keepFresh(held);
    const waited = Date.now() - started;
    if (waited >= timing.waitMs) throw new StoreBusyError(folder, waited);
    // Jitter keeps two waiting processes from polling in step.
    await sleep(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
}

/**
 * Refreshes a held lock every second until released. A lock is lost only when this process
 * stalled for longer than the stale time (10 s by default, far longer than any write takes);
 * then another writer may overlap with it, and this one's release leaves the other's lock alone.
 */
function keepFresh(held: HeldLock): () => Promise<void> {
  const timer = setInterval(() => held.refresh(), REFRESH_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    held.release();
  };
}
