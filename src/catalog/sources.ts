import { isAbsolute, join, resolve } from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import type { Folders } from "../core/folders.js";
import { builtinSkillsFolder } from "../core/package-root.js";

/** The kinds of place skills come from, in increasing precedence. */
export type SourceKind =
  | "builtin"
  | "package"
  | "store"
  | "learned"
  | "config"
  | "user"
  | "project"
  | "caller";

/** One folder of skills, with the source name its skills are recorded under. */
export interface SkillFolderSource {
  readonly kind: SourceKind;
  /** The name recorded on each skill (`builtin`, `user`, `project`, `package:NAME`). */
  readonly source: string;
  /** An absolute folder: a folder of skills, or (for packages) possibly one skill. */
  readonly folder: string;
  /** Why this folder is searched, for `skillgate paths` and `doctor`. */
  readonly reason: string;
  /**
   * For the managed store: whether the skill in a folder of this name is enabled. Skills
   * that are not get the decision `disabled` with `disabled_in_store`.
   */
  readonly isEnabled?: (folderName: string) => boolean;
  /** Folder names skipped at the top of this folder only: the managed store's internal folders. */
  readonly ownFolders?: ReadonlySet<string>;
}

/**
 * The folders the managed store keeps inside its own folder: staging (`.staging`), the
 * trash of replaced and removed skills (`.trash`), approval plans (`.plans`) and the
 * cross-process lock (`.lock`). Skills in them are not the store's skills, so discovery
 * does not search them (docs/skills.md). The store's constants are the source of these
 * names; a test holds this list to them (this layer cannot import the store).
 */
export const STORE_INTERNAL_FOLDERS: ReadonlySet<string> = new Set([".staging", ".trash", ".plans", ".lock"]);

/** The managed store as a catalog source: discovery asks for the enabled names on every run. */
export interface StoreSourceOptions {
  /** `<data>/skills`. */
  readonly folder: string;
  readonly enabledNames: () => ReadonlySet<string>;
}

/** Inputs to {@link skillFolderSources}. */
export interface SourceOptions {
  readonly folders: Folders;
  readonly config: SkillgateConfig;
  /** Project roots, in order; each adds `.skillgate/skills` then `.agents/skills`. */
  readonly roots: readonly string[];
  /** Include the built-in skills (default true). */
  readonly builtins?: boolean;
  /** Folders published by npm packages (see packages.ts), placed after the built-ins. */
  readonly packageFolders?: readonly SkillFolderSource[];
  /** The managed store, placed after learned skills: its folder and the names it has enabled. */
  readonly store?: StoreSourceOptions;
}

/**
 * The skill folders in increasing precedence; a later folder's skill replaces an earlier
 * one of the same name: built-ins, npm packages, learned, the managed store, config, the
 * user's folders, then each project's folders. Skills passed in by a caller come last.
 *
 * Why a project outranks the user: a project pins what its work needs, and whoever opens
 * it should get the project's version of a skill, as they get its code; the person's own
 * skills fill in everything a project does not say. A skill a tool learned replaces an
 * installed one but loses to every folder a person writes.
 */
export function skillFolderSources(options: SourceOptions): SkillFolderSource[] {
  const { folders, config } = options;
  const sources: SkillFolderSource[] = [];
  if (options.builtins !== false) {
    sources.push({
      kind: "builtin",
      source: "builtin",
      folder: builtinSkillsFolder(),
      reason: "shipped with skillgate",
    });
  }
  sources.push(...(options.packageFolders ?? []));
  sources.push({
    kind: "learned",
    source: "learned",
    folder: join(folders.data, "learned", "skills"),
    reason: "skills a tool wrote",
  });
  if (options.store !== undefined) {
    // Read once per discovery run, not once per skill.
    const enabledNames = options.store.enabledNames();
    sources.push({
      kind: "store",
      source: "store",
      folder: options.store.folder,
      reason: "the managed store (enabled skills)",
      isEnabled: (name) => enabledNames.has(name),
      ownFolders: STORE_INTERNAL_FOLDERS,
    });
  }
  sources.push({
    kind: "config",
    source: "config",
    folder: join(folders.config, "skills"),
    reason: "skillgate's config folder",
  });
  sources.push({
    kind: "user",
    source: "user",
    folder: join(folders.home, ".agents", "skills"),
    reason: "your own skills",
  });
  for (const extra of config.skills.userFolders) {
    sources.push({
      kind: "user",
      source: "user",
      folder: expandHome(extra, folders.home),
      reason: "configured user folder",
    });
  }
  for (const root of options.roots) {
    const absoluteRoot = resolve(root);
    sources.push({
      kind: "project",
      source: "project",
      folder: join(absoluteRoot, ".skillgate", "skills"),
      reason: `project ${absoluteRoot}`,
    });
    sources.push({
      kind: "project",
      source: "project",
      folder: join(absoluteRoot, ".agents", "skills"),
      reason: `project ${absoluteRoot}`,
    });
    for (const extra of config.skills.projectFolders) {
      const folder = isAbsolute(extra) ? extra : join(absoluteRoot, extra);
      sources.push({
        kind: "project",
        source: "project",
        folder,
        reason: `configured project folder in ${absoluteRoot}`,
      });
    }
  }
  return sources;
}

/** Expands a leading `~/` to the home folder. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return resolve(path);
}
