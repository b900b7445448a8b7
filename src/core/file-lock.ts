import { randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  lstatSync,
  openSync,
  readlinkSync,
  renameSync,
  type Stats,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { readSmallFile, TEMP_PREFIX } from "./durable-fs.js";
import { processHasEnded } from "./process-groups.js";
import { removeTree } from "./remove-tree.js";

/**
 * The one cross-process lock: a small file created exclusively (`wx`) that names its owner
 * (pid, host, pid namespace, a random token). Used by the store's writers, the audit log's
 * rotation and the approval queue's claims; see docs/architecture.md, "File safety".
 *
 * The staleness rule: a lock may be taken over when its owner process has ended (same host
 * and process namespace only, where a pid means something), or when it is older than the
 * caller's stated limit (`staleMs`, measured from its last {@link HeldLock.refresh}). A
 * holder that keeps a lock longer than the limit refreshes it.
 *
 * The error rule: a lock someone else holds is not an error (`tryLock` returns undefined);
 * any other file-system failure (a missing folder, EACCES) is thrown as it is.
 *
 * Limits: taking over is a rename of the stale lock to a private name, checked afterwards to
 * be the very file judged stale (device, inode, time); if a third process took the lock over
 * in between, it is put back. A holder that stalls past the limit can lose its lock, and
 * POSIX has no compare-and-remove, so a release checks the owner's token just before
 * removing; both windows are microseconds wide and need a stalled holder to matter.
 */

/** A lock this process holds. */
export interface HeldLock {
  /** The lock file. */
  readonly path: string;
  /** Marks the lock as in use now, so its age starts again; a lock no longer ours is left alone. */
  refresh(): void;
  /** Removes the lock if it is still ours; already gone is fine. */
  release(): void;
}

/** How a lock is judged and taken. */
export interface LockOptions {
  /** Age (since the last refresh) after which a lock whose owner may still live is stale. */
  readonly staleMs: number;
  /**
   * Whether a stale lock is taken over (the default) or only reported busy. A claim that must
   * never pass to another holder, such as an approval queue's answer, sets false and removes
   * its stale leftovers another way.
   */
  readonly takeOver?: boolean;
}

/** What a lock file says about its owner. */
interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly namespace: string;
  readonly token: string;
}

/** The largest lock file read; the content is one short line. */
const MAX_LOCK_BYTES = 512;

let processNamespace: string | undefined;

/** This process's pid namespace (Linux), so a pid from another container is never judged. */
function ownNamespace(): string {
  if (processNamespace === undefined) {
    try {
      processNamespace = readlinkSync("/proc/self/ns/pid");
    } catch {
      processNamespace = "-";
    }
  }
  return processNamespace;
}

/**
 * Takes the lock at `path` if it is free or stale ({@link lockIsStale}), else returns
 * undefined. Takes over at most once per call; callers that wait retry.
 */
export function tryLock(path: string, options: LockOptions): HeldLock | undefined {
  const token = randomBytes(8).toString("hex");
  const line = `${process.pid} ${hostname()} ${ownNamespace()} ${token}\n`;
  if (createOnce(path, line)) return heldLock(path, token);
  if (options.takeOver === false) return undefined;
  const judged = lockStats(path);
  // Gone meanwhile: free now, so one more try.
  if (judged === undefined) return createOnce(path, line) ? heldLock(path, token) : undefined;
  if (!isStale(path, judged, options.staleMs) || !moveAsideIfSame(path, judged, token)) return undefined;
  return createOnce(path, line) ? heldLock(path, token) : undefined;
}

/**
 * True when the lock at `path` exists and may be taken over or removed: its owner process
 * has ended, or it is older than `staleMs`. A lock file without a readable owner (an empty
 * marker, another tool's lock folder) is judged by its age alone.
 */
export function lockIsStale(path: string, staleMs: number): boolean {
  const stats = lockStats(path);
  return stats !== undefined && isStale(path, stats, staleMs);
}

function isStale(path: string, stats: Stats, staleMs: number): boolean {
  if (Date.now() - stats.mtimeMs > staleMs) return true;
  const owner = stats.isFile() ? readOwner(path) : undefined;
  return (
    owner !== undefined &&
    owner.host === hostname() &&
    owner.namespace === ownNamespace() &&
    processHasEnded(owner.pid)
  );
}

function heldLock(path: string, token: string): HeldLock {
  return {
    path,
    refresh() {
      if (readOwner(path)?.token !== token) return;
      const now = new Date();
      try {
        utimesSync(path, now, now);
      } catch {
        // Gone: the release or a takeover removed it; nothing to refresh.
      }
    },
    release() {
      if (readOwner(path)?.token === token) removeQuietly(path);
    },
  };
}

/**
 * Creates the lock file exclusively and writes its owner line; false when the name is taken.
 * Between the two steps the file is empty, which reads as "no owner named": it is then judged
 * by its age alone, and it is brand new.
 */
function createOnce(path: string, line: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(descriptor, line);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

/**
 * Renames the stale lock to a private name and checks it is the one judged; removes it then.
 * If another process replaced it meanwhile, the lock taken by mistake is put back (unless a
 * third one holds the name by now) and the answer is false.
 */
function moveAsideIfSame(path: string, judged: Stats, token: string): boolean {
  // The temporary prefix: a crash right here leaves a name the store's next writer removes.
  const aside = join(dirname(path), `${TEMP_PREFIX}${basename(path)}-${process.pid}-${token}`);
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
  const moved = lockStats(aside);
  if (moved === undefined) return false;
  const same = moved.dev === judged.dev && moved.ino === judged.ino && moved.mtimeMs === judged.mtimeMs;
  if (!same && moved.isFile()) {
    try {
      linkSync(aside, path);
    } catch {
      // A third process holds the name now; the one moved aside has lost its lock.
    }
  }
  removeTree(aside);
  return same;
}

function lockStats(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The owner a lock file names, or undefined when it names none (empty, torn, not ours). */
function readOwner(path: string): Owner | undefined {
  const text = readSmallFile(path, MAX_LOCK_BYTES);
  if (text === undefined) return undefined;
  const [pid, host, namespace, token] = text.trim().split(" ");
  const owner = Number(pid);
  if (!Number.isInteger(owner) || owner <= 0 || host === undefined || namespace === undefined || !token)
    return undefined;
  return { pid: owner, host, namespace, token };
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
