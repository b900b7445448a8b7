import { homedir } from "node:os";
import { join, resolve } from "node:path";

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

/** Resolves the config and data folders from options, `SKILLGATE_HOME`, then platform conventions. */
export function resolveFolders(options: FolderOptions = {}): Folders {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = resolve(options.home ?? (env.HOME && env.HOME.length > 0 ? env.HOME : homedir()));
  const skillgateHome = nonEmpty(env.SKILLGATE_HOME);
  const base = skillgateHome
    ? { config: join(resolve(skillgateHome), "config"), data: join(resolve(skillgateHome), "data") }
    : platformFolders(platform, env, home);
  return {
    config: resolve(options.config ?? base.config),
    data: resolve(options.data ?? base.data),
    home,
  };
}

function platformFolders(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  home: string,
): { config: string; data: string } {
  if (platform === "darwin") {
    const support = join(home, "Library", "Application Support", "skillgate");
    return { config: support, data: support };
  }
  if (platform === "win32") {
    const appData = nonEmpty(env.APPDATA) ?? join(home, "AppData", "Roaming");
    const localAppData = nonEmpty(env.LOCALAPPDATA) ?? join(home, "AppData", "Local");
    return { config: join(appData, "skillgate"), data: join(localAppData, "skillgate") };
  }
  // XDG: relative values are invalid per the specification and are ignored.
  const configHome = absoluteOrUndefined(env.XDG_CONFIG_HOME) ?? join(home, ".config");
  const dataHome = absoluteOrUndefined(env.XDG_DATA_HOME) ?? join(home, ".local", "share");
  return { config: join(configHome, "skillgate"), data: join(dataHome, "skillgate") };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 ? value : undefined;
}

function absoluteOrUndefined(value: string | undefined): string | undefined {
  return value?.startsWith("/") ? value : undefined;
}
