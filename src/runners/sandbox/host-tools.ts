import { execFileSync } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, join } from "node:path";

/** Where host programs are looked for; PATH is not consulted, so nothing earlier on it can stand in. */
export const TOOL_FOLDERS = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"] as const;

/** The programs the sandbox drives; `undefined` when one is not installed. */
export interface SandboxTools {
  readonly bwrap: string | undefined;
  /** Drops host root to the sandbox user (util-linux). */
  readonly setpriv: string | undefined;
  /** Sets the run's rlimits inside the sandbox (util-linux); must live under `/usr`. */
  readonly prlimit: string | undefined;
  /** Bridges the proxy socket to the sandbox's loopback; must live under `/usr`. */
  readonly socat: string | undefined;
  /** A private mount namespace for the snapshot portal (util-linux). */
  readonly unshare: string | undefined;
  readonly mount: string | undefined;
  /** The POSIX shell that joins cgroups, makes the portal and starts the proxy bridge. */
  readonly shell: string | undefined;
}

/** What this host's bubblewrap is and which of the options skillgate uses it has. */
export interface BwrapFeatures {
  /** `bubblewrap 0.8.0` → `0.8.0`. */
  readonly version: string;
  /** `--disable-userns` (0.8): no user namespaces inside the sandbox. */
  readonly disableUserns: boolean;
  /** `--size`: a size cap on `--tmpfs`; read from `--help`, not guessed from the version. */
  readonly tmpfsSize: boolean;
  /** `--json-status-fd`: tells a sandbox that started from one that did not. */
  readonly jsonStatus: boolean;
  /** `--perms` for the generated `/etc/passwd` and `/etc/group`. */
  readonly perms: boolean;
  /** `--block-fd`: the sandbox waits at its start while its first process joins the run's cgroups. */
  readonly blockFd: boolean;
  /**
   * `--clearenv` (0.5): the script's environment travels with the arguments instead of at the
   * spawn, so a sandbox can be started before its run is known (see sandbox-pool.ts).
   */
  readonly clearEnv: boolean;
  /** Options skillgate needs and this bubblewrap lacks; non-empty means it cannot be used. */
  readonly missing: readonly string[];
}

/** Options skillgate's invocation cannot do without. */
const REQUIRED_OPTIONS = [
  "--unshare-all",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "--seccomp",
  "--ro-bind-data",
  "--remount-ro",
  "--args",
  "--setenv",
] as const;

/** The absolute path of an executable program in {@link TOOL_FOLDERS}, or undefined. */
export function findTool(name: string, folders: readonly string[] = TOOL_FOLDERS): string | undefined {
  for (const folder of folders) {
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A program that must also run inside the sandbox, which sees only `/usr`: its path when its
 * real file lives under `/usr`, else undefined.
 */
export function findToolUnderUsr(name: string): string | undefined {
  for (const folder of ["/usr/bin", "/usr/sbin", "/usr/local/bin"]) {
    const candidate = findTool(name, [folder]);
    if (candidate === undefined) continue;
    try {
      if (realpathSync(candidate).startsWith("/usr/")) return candidate;
    } catch {
      // a dangling link
    }
  }
  return undefined;
}

let cachedTools: SandboxTools | undefined;

/** The sandbox's programs on this host, looked up once per process. */
export function sandboxTools(): SandboxTools {
  cachedTools ??= {
    bwrap: findTool("bwrap"),
    setpriv: findTool("setpriv"),
    prlimit: findToolUnderUsr("prlimit"),
    socat: findToolUnderUsr("socat"),
    unshare: findTool("unshare"),
    mount: findTool("mount"),
    shell: findToolUnderUsr("sh") ?? findTool("sh"),
  };
  return cachedTools;
}

const featureCache = new Map<string, BwrapFeatures | undefined>();

/**
 * Asks a bubblewrap binary for its version and options (`--version`, `--help`), once per
 * path and process. `undefined` when it does not run at all.
 */
export function bwrapFeatures(bwrap: string): BwrapFeatures | undefined {
  if (featureCache.has(bwrap)) return featureCache.get(bwrap);
  let features: BwrapFeatures | undefined;
  try {
    const version = execFileSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5_000 }).trim();
    const help = execFileSync(bwrap, ["--help"], { encoding: "utf8", timeout: 5_000 });
    features = parseBwrapFeatures(version, help);
  } catch {
    features = undefined;
  }
  featureCache.set(bwrap, features);
  return features;
}

const dashCache = new Map<string, boolean>();

/** Whether a shell is dash (its real file is named `dash`), looked up once per path and process. */
export function shellIsDash(shell: string): boolean {
  let known = dashCache.get(shell);
  if (known === undefined) {
    try {
      known = basename(realpathSync(shell)) === "dash";
    } catch {
      known = false;
    }
    dashCache.set(shell, known);
  }
  return known;
}

const deathSignalCache = new Map<string, boolean>();

/**
 * Whether a chain `setpriv --pdeathsig SIGKILL -- bwrap` dies with this process: setpriv has
 * `--pdeathsig` (util-linux 2.33), and bubblewrap is not setuid or setgid (the kernel clears
 * the death signal when such a program is executed). Worked out once per pair and process.
 */
export function chainDeathSignal(setpriv: string, bwrap: string): boolean {
  const key = `${setpriv}\0${bwrap}`;
  let known = deathSignalCache.get(key);
  if (known === undefined) {
    try {
      const help = execFileSync(setpriv, ["--help"], { encoding: "utf8", timeout: 5_000 });
      known = help.includes("--pdeathsig") && (statSync(bwrap).mode & 0o6000) === 0;
    } catch {
      known = false;
    }
    deathSignalCache.set(key, known);
  }
  return known;
}

/** Reads {@link BwrapFeatures} from the texts of `bwrap --version` and `bwrap --help`. */
export function parseBwrapFeatures(versionText: string, helpText: string): BwrapFeatures {
  const options = new Set(helpText.match(/--[a-z][a-z0-9-]*/g) ?? []);
  const version = /(\d+\.\d+(?:\.\d+)?)/.exec(versionText)?.[1] ?? "unknown";
  return {
    version,
    disableUserns: options.has("--disable-userns"),
    tmpfsSize: options.has("--size"),
    jsonStatus: options.has("--json-status-fd"),
    perms: options.has("--perms"),
    blockFd: options.has("--block-fd"),
    clearEnv: options.has("--clearenv"),
    missing: REQUIRED_OPTIONS.filter((option) => !options.has(option)),
  };
}
