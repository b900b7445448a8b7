import { type Stats, statSync } from "node:fs";

/**
 * How long after its last change a file's or folder's stamp is trusted by a cache. A file
 * system stamps times in ticks (a scheduler tick on older Linux kernels, a second or two
 * on some file systems), so a same-size rewrite in the same tick as the version read
 * would keep the stamp; something read less than this after its last change is read again
 * next time (the "racy file" rule git applies to its index).
 */
export const RACY_WINDOW_MS = 2_000;

/**
 * True when a cached read taken at `readAt` can be trusted for an entry whose current
 * stats are `stats`: the change time (which moves on every write and every time reset,
 * and cannot be set back) lies more than {@link RACY_WINDOW_MS} before the read.
 */
export function settledBefore(stats: Pick<Stats, "ctimeMs">, readAt: number): boolean {
  return readAt - stats.ctimeMs > RACY_WINDOW_MS;
}

/** A folder's identity and version (`ino:mtime:ctime`), or undefined when it cannot be read. */
export function folderStamp(folder: string): { stamp: string; ctimeMs: number } | undefined {
  const stats = statOrUndefined(folder);
  if (stats === undefined) return undefined;
  return { stamp: `${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}`, ctimeMs: stats.ctimeMs };
}

/** A file's identity and version (`ino:size:mtime:ctime`, links followed), or undefined when it cannot be read. */
export function fileStamp(file: string): { stamp: string; ctimeMs: number } | undefined {
  const stats = statOrUndefined(file);
  if (stats === undefined) return undefined;
  return { stamp: `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`, ctimeMs: stats.ctimeMs };
}

/** `stat` without an error object for the common case of nothing there. */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** A value read from a file, with the version of the file it was read from. */
export interface StampedRead<Value> {
  /** The file's stamp before the read, or `missing`. */
  readonly stamp: string;
  /** Whether that version can be trusted next time without reading again (settled, or missing). */
  readonly settled: boolean;
  readonly value: Value;
}

/**
 * `previous` while the file at `path` is still the version it was read from and that
 * version was settled when read; otherwise `read()` again, stamped. The stamp is taken
 * before the read, so a change made during it is seen next time. A missing file is a
 * version of its own (`missing`) that holds until a file appears. `read` is called even
 * for a missing file: it says what no file means.
 */
export function rereadIfChanged<Value>(
  path: string,
  previous: StampedRead<Value> | undefined,
  read: () => Value,
  now: () => number = Date.now,
): StampedRead<Value> {
  const stamp = fileStamp(path);
  const key = stamp?.stamp ?? "missing";
  if (previous !== undefined && previous.stamp === key && previous.settled) return previous;
  const readAt = now();
  const value = read();
  return { stamp: key, settled: stamp === undefined || settledBefore(stamp, readAt), value };
}
