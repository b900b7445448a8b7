import { chmodSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * Codes with which plain removal is refused by a read-only folder, a tree still being written
 * or a busy file (EBUSY, EMFILE, ENFILE, which Node retries itself on the second attempt).
 */
const TRY_AGAIN: ReadonlySet<string> = new Set(["EACCES", "EPERM", "ENOTEMPTY", "EBUSY", "EMFILE", "ENFILE"]);

/**
 * Removes a file or a folder and everything below it. The one rule (docs/architecture.md,
 * "File safety"):
 *
 * - Nothing at `path` is not an error.
 * - Symbolic links are removed, never followed: a link to a folder outside loses nothing there.
 * - When removal is refused (EACCES, EPERM: a snapshot's 0555 folders, a script that chmod-ed
 *   its work folder; ENOTEMPTY: something wrote into the tree meanwhile), every folder below is
 *   made writable by its owner and removal is tried once more, with Node's brief retries
 *   (EBUSY, EMFILE, ENFILE, ENOTEMPTY, EPERM: up to 3 more tries).
 * - Any other error, or a second refusal, is thrown.
 *
 * Not flushed: callers only remove what is already garbage (staging folders, snapshots, work
 * folders), so a crash that brings part of it back leaves garbage, never wrong content.
 * Synchronous, so exit handlers and `finally` blocks can use it; the trees removed are skill
 * sized (see docs/store.md for the limits).
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !TRY_AGAIN.has(code)) throw error;
  }
  makeWritable(path);
  rmSync(path, { recursive: true, force: true, maxRetries: 3 });
}

function makeWritable(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isDirectory()) return;
  chmodSync(path, 0o700);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) makeWritable(join(path, entry.name));
  }
}
