import { homedir } from "node:os";
import { posix, win32 } from "node:path";

/**
 * Where skillgate keeps its configuration and data. On Linux and other Unix systems the
 * XDG base directories; on macOS `~/Library/Application Support`; on Windows `%APPDATA%`.
 * `SKILLGATE_HOME` puts both under one folder (`config/` and `data/`), and explicit
 * options win over everything. skillgate writes nothing outside these two folders.
 */
export interface Folders {
  /** Configuration: `config.yaml`, `skills/`, later `extensions/` and `hooks.json`. */
  readonly config: string;
  /** Data: `learned/skills`, later the store, the audit log and the chat database. */
  readonly data: string;
  /** The user's home folder, for `~/.agents/skills`. */
  readonly home: string;
}

/** Inputs to {@link resolveFolders}; every field is optional. */
export interface FolderOptions {
  readonly config?: string;
  readonly data?: string;
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
}

/**
 * Resolves the config and data folders from options, `SKILLGATE_HOME`, then platform
 * conventions. Paths follow the given platform's rules (backslashes and drive letters on win32),
 * so the result is right for that platform whichever platform computes it.
 */
export function resolveFolders(options: FolderOptions = {}): Folders {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const paths = platform === "win32" ? win32 : posix;
  const home = paths.resolve(options.home ?? homeFrom(env, platform));
  const skillgateHome = nonEmpty(env.SKILLGATE_HOME);
  const base = skillgateHome
    ? {
        config: paths.join(paths.resolve(skillgateHome), "config"),
        data: paths.join(paths.resolve(skillgateHome), "data"),
      }
    : platformFolders(platform, env, home);
  return {
    config: paths.resolve(options.config ?? base.config),
    data: paths.resolve(options.data ?? base.data),
    home,
  };
}

/** The home folder the way the platform names it: `HOME` on Unix, `USERPROFILE` on Windows. */
function homeFrom(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const fromEnv = platform === "win32" ? nonEmpty(env.USERPROFILE) : nonEmpty(env.HOME);
  return fromEnv ?? homedir();
}

function platformFolders(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  home: string,
): { config: string; data: string } {
  if (platform === "darwin") {
    const support = posix.join(home, "Library", "Application Support", "skillgate");
    return { config: support, data: support };
  }
  if (platform === "win32") {
    const appData = nonEmpty(env.APPDATA) ?? win32.join(home, "AppData", "Roaming");
    const localAppData = nonEmpty(env.LOCALAPPDATA) ?? win32.join(home, "AppData", "Local");
    return { config: win32.join(appData, "skillgate"), data: win32.join(localAppData, "skillgate") };
  }
  // XDG: relative values are invalid per the specification and are ignored.
  const configHome = absoluteOrUndefined(env.XDG_CONFIG_HOME) ?? posix.join(home, ".config");
  const dataHome = absoluteOrUndefined(env.XDG_DATA_HOME) ?? posix.join(home, ".local", "share");
  return { config: posix.join(configHome, "skillgate"), data: posix.join(dataHome, "skillgate") };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 ? value : undefined;
}

function absoluteOrUndefined(value: string | undefined): string | undefined {
  return value !== undefined && posix.isAbsolute(value) ? value : undefined;
}
