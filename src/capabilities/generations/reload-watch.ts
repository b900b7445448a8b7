import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";

/**
 * The reloader's "file change debounce" step: `fs.watch` on the folders of the watched files
 * (editors replace a file by renaming a new one over it, which a watch on the file itself
 * would lose), filtered by name; `onSettled` runs once the files have been quiet for
 * `debounceMs`, with how long it waited since the first change of the burst.
 */
export class DebouncedFileWatch {
  readonly #debounceMs: number;
  readonly #onSettled: (waitedMs: number) => void;
  #watchers: FSWatcher[] = [];
  #timer: NodeJS.Timeout | undefined;
  #firstChangeAt: number | undefined;

  constructor(debounceMs: number, onSettled: (waitedMs: number) => void) {
    this.#debounceMs = debounceMs;
    this.#onSettled = onSettled;
  }

  /** Watches exactly these files from now on (the previous watches end). */
  watch(files: readonly string[]): void {
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    const byFolder = new Map<string, Set<string>>();
    for (const file of files) {
      const names = byFolder.get(dirname(file)) ?? new Set<string>();
      names.add(basename(file));
      byFolder.set(dirname(file), names);
    }
    for (const [folder, names] of byFolder) {
      try {
        const watcher = watch(folder, (_event, name) => {
          if (name === null || names.has(name.toString())) this.#changed();
        });
        this.#watchers.push(watcher);
      } catch {
        // A folder that vanished is watched again after the next reload.
      }
    }
  }

  #changed(): void {
    this.#firstChangeAt ??= Date.now();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const waited = Date.now() - (this.#firstChangeAt ?? Date.now());
      this.#firstChangeAt = undefined;
      this.#onSettled(waited);
    }, this.#debounceMs);
  }

  /** Ends every watch and a pending debounce. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
  }
}
