import { chmodSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * Removes a folder and everything below it, including read-only folders (a snapshot's
 * 0555 folders, or a script that chmod-ed its work folder): when plain removal is refused,
 * every folder below is made writable by its owner and removal is tried once more.
 * Symbolic links are never followed. Missing paths are fine.
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "ENOTEMPTY") throw error;
  }
  makeWritable(path);
  rmSync(path, { recursive: true, force: true });
}

function makeWritable(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isDirectory()) return;
  chmodSync(path, 0o700);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) makeWritable(join(path, entry.name));
  }
}
