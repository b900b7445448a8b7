import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { removeTree } from "../core/remove-tree.js";

/** Leftovers of a copy (`.tmp-*`) or a removal (`.trash-*`) older than this are removed. */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/**
 * Keeps the `keep` most recently used snapshots (a reuse touches a snapshot's folder time)
 * and removes the rest, except those `inUse` by a run of this process. A run of another
 * process is not known here: its snapshot is removed only once `keep` newer ones exist.
 * Leftover temporary folders of a crashed copy are removed after an hour. Best effort:
 * a folder that cannot be removed now is tried again next time.
 */
export function pruneSnapshots(folder: string, keep: number, inUse: ReadonlySet<string>): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  const now = Date.now();
  const snapshots: { name: string; usedAt: number }[] = [];
  for (const name of names) {
    const stats = lstatSync(join(folder, name), { throwIfNoEntry: false });
    if (stats === undefined) continue;
    if (name.startsWith(".tmp-") || name.startsWith(".trash-")) {
      if (now - stats.mtimeMs > LEFTOVER_AGE_MS) attempt(() => removeTree(join(folder, name)));
      continue;
    }
    if (/^[0-9a-f]{64}$/.test(name) && stats.isDirectory()) snapshots.push({ name, usedAt: stats.mtimeMs });
  }
  if (snapshots.length <= keep) return;
  snapshots.sort((left, right) => right.usedAt - left.usedAt);
  for (const snapshot of snapshots.slice(keep)) {
    if (inUse.has(snapshot.name)) continue;
    attempt(() => discard(join(folder, snapshot.name), folder));
  }
}

function attempt(action: () => void): void {
  try {
    action();
  } catch {
    // Another process removed it first, or it is busy: the next prune tries again.
  }
}

/** Moves a snapshot aside, then removes it, so nobody sees it half gone. */
export function discard(target: string, snapshotsFolder: string): void {
  const aside = join(snapshotsFolder, `.trash-${randomBytes(6).toString("hex")}`);
  try {
    renameSync(target, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  removeTree(aside);
}
