/**
 * Writes announced within one process: the managed store tells every catalog of the same
 * process that its folder changed as soon as a write is published (before the write's
 * promise resolves), so a catalog kept by revision sees its own process's writes on the very
 * next call, without waiting for a file-system notification. Other processes' writes reach
 * a catalog through notifications (catalog/tree-watch.ts).
 */
type FolderWriteListener = (folder: string) => void;

const listeners = new Set<FolderWriteListener>();

/** Tells every listener that something under `folder` (an absolute path) was written. */
export function announceFolderWrite(folder: string): void {
  for (const listener of listeners) {
    try {
      listener(folder);
    } catch {
      // A listener's failure is its own: the write happened either way.
    }
  }
}

/** Calls `listener` for every announced write from now on; returns the function that stops it. */
export function onFolderWrite(listener: FolderWriteListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
