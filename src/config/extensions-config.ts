import { bounded, mapping, unknownKeys } from "./config-fields.js";

/** The `extensions` section of config.yaml: project opt-in, more files, shell hook limits. */
export interface ExtensionsConfig {
  /**
   * Load each project root's `.skillgate/extensions` and `.skillgate/hooks.json`. Off by
   * default: cloning a repository must never run its code.
   */
  readonly project: boolean;
  /** More extension files or folders to load, besides `<config>/extensions`. */
  readonly paths: readonly string[];
  readonly hooks: {
    /** A shell hook's command is killed after this long (and noted as failed). */
    readonly timeoutSeconds: number;
    /** Bytes a shell hook may print on each stream before it is killed. */
    readonly maxOutputBytes: number;
  };
}

/** No project extensions, no extra paths, 10 s and 64 KiB per shell hook. */
export const DEFAULT_EXTENSIONS_CONFIG: ExtensionsConfig = {
  project: false,
  paths: [],
  hooks: { timeoutSeconds: 10, maxOutputBytes: 64 * 1024 },
};

const BOUNDS = {
  timeoutSeconds: { min: 1, max: 3600 },
  maxOutputBytes: { min: 1024, max: 16 * 1024 * 1024 },
} as const;

/** Reads the `extensions` section, adding every problem to `problems`. */
export function readExtensionsConfig(section: Record<string, unknown>, problems: string[]): ExtensionsConfig {
  unknownKeys(section, "extensions", ["project", "paths", "hooks"], problems);
  const hooks = mapping(section, "hooks", "extensions", problems);
  unknownKeys(hooks, "extensions.hooks", ["timeout_seconds", "max_output_bytes"], problems);
  const defaults = DEFAULT_EXTENSIONS_CONFIG;
  return {
    project: flag(section.project, "extensions.project", problems),
    paths: paths(section.paths, problems),
    hooks: {
      timeoutSeconds: bounded(
        hooks.timeout_seconds,
        "extensions.hooks.timeout_seconds",
        BOUNDS.timeoutSeconds,
        defaults.hooks.timeoutSeconds,
        problems,
      ),
      maxOutputBytes: bounded(
        hooks.max_output_bytes,
        "extensions.hooks.max_output_bytes",
        BOUNDS.maxOutputBytes,
        defaults.hooks.maxOutputBytes,
        problems,
      ),
    },
  };
}

function flag(value: unknown, where: string, problems: string[]): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "boolean") return value;
  problems.push(`"${where}" must be true or false`);
  return false;
}

function paths(value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item === "string" && item.trim().length > 0))
    return value;
  problems.push(`"extensions.paths" must be a list of files or folders`);
  return [];
}
