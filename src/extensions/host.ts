import { type FSWatcher, watch } from "node:fs";
import { dirname, join } from "node:path";
import { type ExtensionProblem, extensionFolders, hooksFiles, loadExtensions } from "./load.js";
import type { Registry } from "./registry.js";

/** Where a host reads extensions and hooks from, as the configuration says now. */
export interface ExtensionSettings {
  /** The config folder: `<config>/extensions` and `<config>/hooks.json`. */
  readonly configFolder: string;
  /** Project roots, read only with `project`. */
  readonly roots: readonly string[];
  /** The project opt-in: cloning a repository must never run its code. */
  readonly project: boolean;
  /** More extension files or folders. */
  readonly paths: readonly string[];
  readonly hookTimeoutMs: number;
  readonly hookMaxOutputBytes: number;
}

/**
 * Loads, reloads and watches the extensions and hooks of one registry. Reload drops what the
 * files registered and reads them again; what the program registered stays.
 */
export class ExtensionHost {
  readonly registry: Registry;
  readonly #settings: () => ExtensionSettings;
  #loading: Promise<string[]> | undefined;
  #problems: ExtensionProblem[] = [];

  constructor(registry: Registry, settings: () => ExtensionSettings) {
    this.registry = registry;
    this.#settings = settings;
  }

  /** Where extensions and hooks are read from, as the configuration says now. */
  settings(): ExtensionSettings {
    return this.#settings();
  }

  /**
   * Reads every extension file and hooks file (once: a second call while loaded does
   * nothing). Returns the notes this load added.
   */
  async load(): Promise<string[]> {
    if (this.registry.loaded) return [];
    this.#loading ??= this.#read().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /** Drops what the files registered and reads them again; returns the new notes. */
  async reload(): Promise<string[]> {
    await this.#loading;
    this.registry.dropLoaded();
    return this.load();
  }

  /**
   * The files the last load could not use (an extension that failed, a refused hooks file),
   * empty before the first load. `doctor`, `extensions` and `hooks list` exit 1 on any.
   */
  get problems(): readonly ExtensionProblem[] {
    return this.#problems;
  }

  /**
   * Watches the extension folders and hooks files; a change fires the `watch` event with the
   * changed paths, then reloads. Returns a function that stops watching. Folders that do not
   * exist yet are watched through their parent, so a first extension dropped in is seen.
   */
  watch(options: { debounceMs?: number } = {}): () => void {
    const settings = this.#settings();
    const watched = new Set([
      ...extensionFolders({
        config: settings.configFolder,
        roots: settings.roots,
        project: settings.project,
      }),
      ...hooksFiles({ config: settings.configFolder, roots: settings.roots, project: settings.project }).map(
        (location) => dirname(location.file),
      ),
    ]);
    const changed = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const flush = (): void => {
      const paths = [...changed];
      changed.clear();
      void this.registry.fire("watch", { paths }).then(() => this.reload());
    };
    const watchers: FSWatcher[] = [];
    for (const folder of watched) {
      const watcher = watchFolder(folder, (path) => {
        changed.add(path);
        clearTimeout(timer);
        timer = setTimeout(flush, options.debounceMs ?? 200);
        timer.unref();
      });
      if (watcher !== undefined) watchers.push(watcher);
    }
    return () => {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    };
  }

  async #read(): Promise<string[]> {
    const settings = this.#settings();
    const before = this.registry.notes.length;
    const problems: ExtensionProblem[] = [];
    await loadExtensions(this.registry, {
      onProblem: (problem) => problems.push(problem),
      config: settings.configFolder,
      roots: settings.roots,
      project: settings.project,
      paths: settings.paths,
      hookTimeoutMs: settings.hookTimeoutMs,
      hookMaxOutputBytes: settings.hookMaxOutputBytes,
    });
    this.#problems = problems;
    return this.registry.notes.slice(before);
  }
}

/** Watches `folder`, or its nearest existing parent when it does not exist yet. */
function watchFolder(folder: string, onChange: (path: string) => void): FSWatcher | undefined {
  let target = folder;
  for (;;) {
    try {
      const watcher = watch(target, { persistent: false }, (_event, name) => {
        const path = name === null ? target : join(target, name.toString());
        // Watching a parent: only the folder itself (created, removed) or what is inside it counts.
        if (
          path === folder ||
          path.startsWith(`${folder}/`) ||
          folder.startsWith(`${path}/`) ||
          target === folder
        )
          onChange(path);
      });
      watcher.on("error", () => watcher.close());
      return watcher;
    } catch {
      const parent = dirname(target);
      if (parent === target) return undefined;
      target = parent;
    }
  }
}
