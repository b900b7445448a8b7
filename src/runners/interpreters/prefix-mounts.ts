import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { resolveFolders } from "../../core/folders.js";

/** One read-only bind of an interpreter's folder: the host's real folder, and where it appears in the sandbox. */
export interface InterpreterMount {
  /** The real (symbolic-link free) folder on the host. */
  readonly source: string;
  /** Where it appears: the same path, or the unresolved path the interpreter reported. */
  readonly target: string;
}

/** Folders the sandbox has anyway (`/usr`, read-only) or must keep as they are. */
const SYSTEM_PREFIX = "/usr";
/** A prefix inside one of these is refused: they are the sandbox's own (`/proc`, `/dev`) or the host's settings. */
const REFUSED_ROOTS = ["/proc", "/sys", "/dev", "/etc", "/run", "/boot", "/skill"] as const;

/** What {@link prefixMounts} needs. */
export interface PrefixMountInput {
  /** The interpreter as found (for messages). */
  readonly interpreter: string;
  /** The program that will run, as the interpreter reported it. */
  readonly executable: string;
  readonly realExecutable: string;
  /** `sys.prefix` (and `sys.base_prefix` of a venv), or the folder above node's `bin`. */
  readonly prefixes: readonly string[];
  /**
   * Where its packages are (Python's `site.getsitepackages()`): each that exists and is
   * outside `/usr` and the prefixes is bound too (Homebrew keeps them beside its prefix).
   */
  readonly packageFolders?: readonly string[];
  /** More folders no mount may hold, besides skillgate's own and the home folder of this process. */
  readonly protectedFolders?: readonly string[];
}

/**
 * The read-only binds that make an interpreter and the packages installed for it visible in
 * the sandbox: each prefix outside `/usr` at its real path, and also at the path the
 * interpreter reported when that goes through a symbolic link; then each package folder
 * neither already shows. A prefix too broad to bind is
 * refused (a sentence, for a `HOST:` text): `/` or a top-level folder, one inside the
 * sandbox's own or the host's system folders, or one holding the home folder or skillgate's
 * own folders (which would expose the data folder). The program itself must lie inside what
 * is bound, or under `/usr`; the program to run is the reported one when the sandbox shows
 * that path, else its real file (a link from outside the prefix to an interpreter under it).
 */
export function prefixMounts(
  input: PrefixMountInput,
): { ok: true; mounts: InterpreterMount[]; executable: string } | { ok: false; problem: string } {
  const mounts: InterpreterMount[] = [];
  const add = (mount: InterpreterMount): void => {
    if (!mounts.some((known) => known.source === mount.source && known.target === mount.target))
      mounts.push(mount);
  };
  const protectedFolders = [...(input.protectedFolders ?? []), ...defaultProtectedFolders()];
  for (const reported of input.prefixes) {
    if (!isAbsolute(reported))
      return {
        ok: false,
        problem: `${input.interpreter} reported a prefix that is not absolute (${reported})`,
      };
    // `..` and `.` parts would become bind targets as written.
    const prefix = resolve(reported);
    let real: string;
    try {
      real = realpathSync(prefix);
    } catch {
      return {
        ok: false,
        problem: `${input.interpreter} reported the prefix ${prefix}, which does not exist`,
      };
    }
    if (inside(real, SYSTEM_PREFIX) && inside(prefix, SYSTEM_PREFIX)) continue;
    for (const path of real === prefix ? [real] : [real, prefix]) {
      const broad = tooBroad(path, protectedFolders);
      if (broad !== undefined)
        return {
          ok: false,
          problem: `${input.interpreter} lives in ${path}, which is not bound into the sandbox because ${broad}`,
        };
    }
    add({ source: real, target: real });
    if (prefix !== real) add({ source: real, target: prefix });
  }
  const visible = (path: string, side: "source" | "target"): boolean =>
    inside(path, SYSTEM_PREFIX) || mounts.some((mount) => inside(path, mount[side]));
  for (const reported of input.packageFolders ?? []) {
    if (!isAbsolute(reported)) continue;
    const folder = resolve(reported);
    if (visible(folder, "target")) continue;
    let real: string;
    try {
      real = realpathSync(folder);
    } catch {
      continue; // a site folder that was never made holds no packages
    }
    const broad = tooBroad(real, protectedFolders) ?? tooBroad(folder, protectedFolders);
    if (broad !== undefined)
      return {
        ok: false,
        problem: `${input.interpreter} keeps packages in ${folder}, which is not bound into the sandbox because ${broad}`,
      };
    add({ source: real, target: real });
    if (folder !== real) add({ source: real, target: folder });
  }
  if (!visible(input.realExecutable, "source"))
    return {
      ok: false,
      problem: `${input.interpreter} runs ${input.executable} (${input.realExecutable}), which is outside its prefix (${input.prefixes.join(", ")}) and /usr`,
    };
  // A link to the program from elsewhere (not a venv: its own bin is inside its prefix) runs as the real file.
  const reportedExecutable = resolve(input.executable);
  const executable = visible(reportedExecutable, "target") ? reportedExecutable : input.realExecutable;
  return { ok: true, mounts, executable };
}

/** Why a folder may not be bound, or undefined when it may. */
function tooBroad(path: string, protectedFolders: readonly string[]): string | undefined {
  const parts = path.split(sep).filter((part) => part !== "");
  if (parts.length < 2) return "a top-level folder is too broad to show a script";
  const root = REFUSED_ROOTS.find((refused) => inside(path, refused));
  if (root !== undefined) return `${root} is the host's or the sandbox's own`;
  const held = protectedFolders.find((folder) => inside(folder, path));
  if (held !== undefined) return `it holds ${held}, which a script must not see`;
  return undefined;
}

/** skillgate's config and data folders and the home folder of this process, real paths where they exist. */
function defaultProtectedFolders(): string[] {
  const folders = resolveFolders();
  return [folders.config, folders.data, folders.home].flatMap((folder) => {
    try {
      return [folder, realpathSync(folder)];
    } catch {
      return [folder];
    }
  });
}

/** Whether `path` is `folder` or below it. */
export function inside(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === "" || (!rest.startsWith("..") && !isAbsolute(rest));
}
