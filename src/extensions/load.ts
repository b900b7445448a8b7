import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describeError } from "../core/errors.js";
import { stripTypes } from "../core/strip-types.js";
import type { Registry } from "./registry.js";
import { loadShellHooks } from "./shell-hooks.js";
import type { Registrar } from "./types.js";

/** The file kinds an extension may be. `.ts` files have their types stripped first. */
export const EXTENSION_FILE_KINDS: readonly string[] = [".js", ".mjs", ".ts"];

/** The folder, inside a config folder or a project root, that holds extensions. */
export const EXTENSIONS_FOLDER = "extensions";

/** A project's own skillgate folder, holding `extensions/` and `hooks.json`. */
export const PROJECT_FOLDER = ".skillgate";

/** Where extensions and hooks are read from. */
export interface ExtensionFolderOptions {
  /** Project roots; their `.skillgate/extensions` load only with `project: true`. */
  readonly roots?: readonly string[];
  /** The config folder: `<config>/extensions` and `<config>/hooks.json`. */
  readonly config?: string;
  /** Load the project roots' extensions and hooks too. Off by default: cloning a repository never runs its code. */
  readonly project?: boolean;
}

/** Options of {@link load}. */
export interface LoadExtensionsOptions extends ExtensionFolderOptions {
  /** More extension files or folders to load (a folder: its extension files). */
  readonly paths?: readonly string[];
  /** A shell hook command's time limit when its entry gives none; default 10 s. */
  readonly hookTimeoutMs?: number;
  /** Bytes a shell hook command may print on each stream; default 64 KiB. */
  readonly hookMaxOutputBytes?: number;
  /**
   * Told about each file that could not be used at all: an extension whose import or
   * `setup` failed, a hooks file that is not loaded. Its note says the same in words.
   */
  readonly onProblem?: (problem: ExtensionProblem) => void;
}

/** A file {@link load} could not use: `doctor`, `extensions` and `hooks list` report it and exit 1. */
export interface ExtensionProblem {
  /** `extension_failed` (an extension file) or `hooks_file_unusable` (a hooks file). */
  readonly code: "extension_failed" | "hooks_file_unusable";
  readonly file: string;
  /** Why, in words (the file's note). */
  readonly message: string;
}

/** The hooks file's name in a config folder and in a project's `.skillgate` folder. */
export const HOOKS_FILE = "hooks.json";

/** A hooks file to read, and from where. */
export interface HooksFileLocation {
  readonly file: string;
  readonly scope: "config" | "project";
  /** Shell hook commands run here: the project root for a project's hooks. */
  readonly cwd?: string;
}

/**
 * The hooks files, in order: `<config>/hooks.json`, then with the project opt-in each
 * root's `.skillgate/hooks.json`.
 */
export function hooksFiles(options: ExtensionFolderOptions): HooksFileLocation[] {
  const files: HooksFileLocation[] = [];
  if (options.config !== undefined) files.push({ file: join(options.config, HOOKS_FILE), scope: "config" });
  if (options.project === true) {
    for (const root of options.roots ?? []) {
      const absolute = resolve(root);
      files.push({ file: join(absolute, PROJECT_FOLDER, HOOKS_FILE), scope: "project", cwd: absolute });
    }
  }
  return files;
}

/**
 * The extension folders to load, in order: `<config>/extensions`, then, with `project`,
 * each root's `.skillgate/extensions`.
 */
export function extensionFolders(options: ExtensionFolderOptions): string[] {
  const folders: string[] = [];
  if (options.config !== undefined) folders.push(join(options.config, EXTENSIONS_FOLDER));
  if (options.project === true) {
    for (const root of options.roots ?? [])
      folders.push(join(resolve(root), PROJECT_FOLDER, EXTENSIONS_FOLDER));
  }
  return folders;
}

/**
 * Runs every extension file in the extension folders whose name does not start with `_`
 * (helpers an extension imports), plus the files and folders in `paths`, and calls each
 * file's `setup(reg)` (a named or default export); then registers the shell hooks of each
 * hooks file ({@link hooksFiles}). Adds one note per file: what it registered, or why it
 * failed. A file that fails registers nothing. Marks the registry loaded.
 */
export async function loadExtensions(
  registry: Registry,
  options: LoadExtensionsOptions = {},
): Promise<Registry> {
  const files = [
    ...extensionFolders(options).flatMap((folder) => extensionFiles(folder)),
    ...(options.paths ?? []).flatMap((path) => pathFiles(path)),
  ];
  for (const file of files) {
    const loaded = await loadFile(registry, file);
    registry.note(loaded.note);
    if (loaded.failed) options.onProblem?.({ code: "extension_failed", file, message: loaded.note });
  }
  for (const location of hooksFiles(options)) {
    const note = await loadShellHooks(registry, location.file, {
      scope: location.scope,
      ...(options.hookTimeoutMs !== undefined ? { timeoutMs: options.hookTimeoutMs } : {}),
      ...(options.hookMaxOutputBytes !== undefined ? { maxOutputBytes: options.hookMaxOutputBytes } : {}),
      ...(location.cwd !== undefined ? { cwd: location.cwd } : {}),
      onUnusable: (reason) =>
        options.onProblem?.({
          code: "hooks_file_unusable",
          file: location.file,
          message: `${basename(location.file)}: not loaded (${reason})`,
        }),
    });
    if (note !== undefined) registry.note(note);
  }
  return registry.markLoaded();
}

/** Loads one file; the note says what it added or why it did not load. */
async function loadFile(registry: Registry, file: string): Promise<{ note: string; failed: boolean }> {
  const name = basename(file);
  let setup: ((registrar: Registrar) => unknown) | undefined;
  try {
    setup = setupOf(await importFile(file));
  } catch (error) {
    return { note: `${name}: failed to load (${describeError(error)})`, failed: true };
  }
  if (setup === undefined) return { note: `${name}: loaded, no setup()`, failed: false };
  try {
    await registry.loadingFrom(file, setup);
  } catch (error) {
    return { note: `${name}: failed to load (${describeError(error)})`, failed: true };
  }
  return { note: `${name}: ${describeCounts(registry.countFrom(file))}`, failed: false };
}

function describeCounts(counts: ReturnType<Registry["countFrom"]>): string {
  const parts = [`${counts.tools} tool(s)`, `${counts.skills} skill(s)`, `${counts.commands} command(s)`];
  if (counts.hooks > 0) parts.push(`${counts.hooks} hook(s)`);
  if (counts.approvals > 0) parts.push("an approval policy");
  return parts.join(", ");
}

/**
 * Imports an extension file. The URL carries the file's size and time, so a changed file is
 * imported afresh on reload (Node caches modules by URL and never unloads them: every
 * changed version stays in memory until the process ends). A `.ts` file is compiled alone
 * and imported from a `data:` URL: it may import Node's built-ins and absolute paths, not
 * relative files.
 */
async function importFile(file: string): Promise<unknown> {
  const stamp = statSync(file);
  if (extname(file) === ".ts") {
    const code = await stripTypes(readFileSync(file, "utf8"), basename(file));
    return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
  }
  return import(`${pathToFileURL(file).href}?version=${stamp.size}-${stamp.mtimeMs}`);
}

/** `setup` as a named export, a default function, or a default object's `setup`. */
function setupOf(module: unknown): ((registrar: Registrar) => unknown) | undefined {
  if (module === null || typeof module !== "object") return undefined;
  const exports = module as { setup?: unknown; default?: unknown };
  if (typeof exports.setup === "function") return exports.setup as (registrar: Registrar) => unknown;
  if (typeof exports.default === "function") return exports.default as (registrar: Registrar) => unknown;
  const fallback = exports.default as { setup?: unknown } | null | undefined;
  if (fallback !== null && typeof fallback === "object" && typeof fallback.setup === "function") {
    return fallback.setup as (registrar: Registrar) => unknown;
  }
  return undefined;
}

/** A folder's extension files in name order; `_helpers.js` and dot files are left out. */
function extensionFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter(
      (name) =>
        !name.startsWith("_") && !name.startsWith(".") && EXTENSION_FILE_KINDS.includes(extname(name)),
    )
    .sort()
    .map((name) => join(folder, name))
    .filter((file) => isFile(file));
}

function pathFiles(path: string): string[] {
  const absolute = resolve(path);
  return isFile(absolute) ? [absolute] : extensionFiles(absolute);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
