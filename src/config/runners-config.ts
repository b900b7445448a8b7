import { bounded, mapping, unknownKeys } from "./config-fields.js";

/** The `runners` section of config.yaml: who may run unconfined, default limits, snapshots kept. */
export interface RunnersConfig {
  readonly local: {
    /** Names or globs of skills the owner trusts to run on the host itself (`skillgate.execution: local`). */
    readonly trusted: readonly string[];
  };
  readonly limits: {
    /** A run is stopped (its whole process group killed) after this long. */
    readonly timeoutSeconds: number;
    /** Bytes kept of stdout and of stderr each; the rest is dropped and flagged. */
    readonly maxOutputBytes: number;
  };
  readonly snapshots: {
    /** Verified snapshots kept; the least recently used beyond this are removed. */
    readonly keep: number;
  };
  /**
   * Absolute paths of the interpreters to run scripts with, instead of `python3`, `node` and
   * `bash` on PATH (docs/running-scripts.md, "Interpreters"). A shim is resolved like one on PATH.
   */
  readonly interpreters: {
    readonly python?: string;
    readonly node?: string;
    readonly bash?: string;
  };
}

/** Nothing trusted locally; 60 s, 64 KiB of each stream; 50 snapshots. */
export const DEFAULT_RUNNERS_CONFIG: RunnersConfig = {
  local: { trusted: [] },
  limits: { timeoutSeconds: 60, maxOutputBytes: 64 * 1024 },
  snapshots: { keep: 50 },
  interpreters: {},
};

/** The interpreters `runners.interpreters` may name. */
const INTERPRETER_KEYS = ["python", "node", "bash"] as const;

/** Bounds of each number, so a typo cannot make a run unbounded or a cap useless. */
const BOUNDS = {
  timeoutSeconds: { min: 1, max: 24 * 3600 },
  maxOutputBytes: { min: 1024, max: 64 * 1024 * 1024 },
  keep: { min: 1, max: 10_000 },
} as const;

/** Reads the `runners` section, adding every problem to `problems`. */
export function readRunnersConfig(section: Record<string, unknown>, problems: string[]): RunnersConfig {
  unknownKeys(section, "runners", ["local", "limits", "snapshots", "interpreters"], problems);
  const local = mapping(section, "local", "runners", problems);
  const limits = mapping(section, "limits", "runners", problems);
  const snapshots = mapping(section, "snapshots", "runners", problems);
  unknownKeys(local, "runners.local", ["trusted"], problems);
  unknownKeys(limits, "runners.limits", ["timeout_seconds", "max_output_bytes"], problems);
  unknownKeys(snapshots, "runners.snapshots", ["keep"], problems);
  const interpreters = mapping(section, "interpreters", "runners", problems);
  unknownKeys(interpreters, "runners.interpreters", INTERPRETER_KEYS, problems);
  const defaults = DEFAULT_RUNNERS_CONFIG;
  return {
    local: { trusted: names(local.trusted, "runners.local.trusted", problems) },
    limits: {
      timeoutSeconds: bounded(
        limits.timeout_seconds,
        "runners.limits.timeout_seconds",
        BOUNDS.timeoutSeconds,
        defaults.limits.timeoutSeconds,
        problems,
      ),
      maxOutputBytes: bounded(
        limits.max_output_bytes,
        "runners.limits.max_output_bytes",
        BOUNDS.maxOutputBytes,
        defaults.limits.maxOutputBytes,
        problems,
      ),
    },
    snapshots: {
      keep: bounded(snapshots.keep, "runners.snapshots.keep", BOUNDS.keep, defaults.snapshots.keep, problems),
    },
    interpreters: interpreterPaths(interpreters, problems),
  };
}

/**
 * Each configured interpreter must be an absolute path of plain text: no control characters
 * (it becomes a program name and a bind path) and no `.` or `..` part. Whether it exists is
 * checked when it is used, and `skillgate doctor` shows it.
 */
function interpreterPaths(
  section: Record<string, unknown>,
  problems: string[],
): RunnersConfig["interpreters"] {
  const paths: { python?: string; node?: string; bash?: string } = {};
  for (const key of INTERPRETER_KEYS) {
    const value = section[key];
    if (value === undefined || value === null) continue;
    const where = `runners.interpreters.${key}`;
    if (
      typeof value !== "string" ||
      !value.startsWith("/") ||
      value.endsWith("/") ||
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      /[\u0000-\u001f\u007f]/.test(value) ||
      value.split("/").some((part) => part === "." || part === "..")
    ) {
      problems.push(`"${where}" must be an absolute path to the interpreter, e.g. /usr/bin/python3`);
      continue;
    }
    paths[key] = value;
  }
  return paths;
}

function names(value: unknown, where: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item === "string" && item.trim().length > 0))
    return value;
  problems.push(`"${where}" must be a list of skill names or globs`);
  return [];
}
