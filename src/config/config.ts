import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parseDocument } from "yaml";
import { InvalidConfigError } from "../core/errors.js";
import { rereadIfChanged, type StampedRead } from "../core/file-stamps.js";
import { DEFAULT_INDEX_BUDGET, MAX_YAML_ALIAS_COUNT } from "../core/limits.js";
import { isPlainObject } from "../core/safe-json.js";
import {
  type CapabilitiesConfig,
  DEFAULT_CAPABILITIES_CONFIG,
  readCapabilitiesConfig,
} from "./capabilities-config.js";
import { DEFAULT_DISCOVERY_CONFIG, type DiscoveryConfig, readDiscoveryConfig } from "./discovery-config.js";
import {
  DEFAULT_EXTENSIONS_CONFIG,
  type ExtensionsConfig,
  readExtensionsConfig,
} from "./extensions-config.js";
import { DEFAULT_NODES_CONFIG, type NodesConfig, readNodesConfig } from "./nodes-config.js";
import {
  DEFAULT_NOTIFICATIONS_CONFIG,
  type NotificationsConfig,
  readNotificationsConfig,
} from "./notifications-config.js";
import { DEFAULT_PACKAGES_CONFIG, type PackagesConfig, readPackagesConfig } from "./packages-config.js";
import { DEFAULT_POLICY_CONFIG, type PolicyConfig, readPolicyConfig } from "./policy-config.js";
import { DEFAULT_QUEUE_CONFIG, type QueueConfig, readQueueConfig } from "./queue-config.js";
import { DEFAULT_RUNNERS_CONFIG, type RunnersConfig, readRunnersConfig } from "./runners-config.js";

/** The configuration file's name inside the config folder. */
export const CONFIG_FILE = "config.yaml";

/** What `<config>/config.yaml` may say about skills. Every field is optional. */
export interface SkillgateConfig {
  readonly skills: {
    /** Names or globs of skills that are never offered (decision `disabled`). */
    readonly disabled: readonly string[];
    /** Names or globs of skills shown to people but not offered to models (`display_only`). */
    readonly hidden: readonly string[];
    /** Extra user-level skill folders (other agents' folders such as `~/.claude/skills`), after `~/.agents/skills`. */
    readonly userFolders: readonly string[];
    /** Extra folders inside each project root (such as `.claude/skills`), after `.agents/skills`. */
    readonly projectFolders: readonly string[];
    /** npm packages that publish skills but are not in a project's `node_modules`. */
    readonly packages: readonly string[];
  };
  readonly index: {
    /** Characters the skill index may take in a system prompt. */
    readonly budget: number;
  };
  /** The caps of the folder walk: skills and folders per root, and depth. */
  readonly discovery: DiscoveryConfig;
  /** Owner rules added to the built-in policy table, and the approval request life. */
  readonly policy: PolicyConfig;
  /** Skills trusted to run on the host, default run limits, snapshots kept. */
  readonly runners: RunnersConfig;
  /** Where skills' declared packages come from, and how many environments are kept. */
  readonly packages: PackagesConfig;
  /** The project opt-in for extensions and hooks, more extension paths, shell hook limits. */
  readonly extensions: ExtensionsConfig;
  /** Where the owner is told of drafts and applied edits (docs/notifications.md). */
  readonly notifications: NotificationsConfig;
  /** Which nodes each skill may go to, and how long a signed skills manifest lives (docs/nodes.md). */
  readonly nodes: NodesConfig;
  /** The worker pool for `skillgate.execution: queue` (docs/queue.md). */
  readonly queue: QueueConfig;
  /** The owner's capability policy, provider and capability switches and priorities (docs/capabilities.md). */
  readonly capabilities: CapabilitiesConfig;
}

/** The configuration used when there is no file. */
export const DEFAULT_CONFIG: SkillgateConfig = {
  skills: { disabled: [], hidden: [], userFolders: [], projectFolders: [], packages: [] },
  index: { budget: DEFAULT_INDEX_BUDGET },
  discovery: DEFAULT_DISCOVERY_CONFIG,
  policy: DEFAULT_POLICY_CONFIG,
  runners: DEFAULT_RUNNERS_CONFIG,
  packages: DEFAULT_PACKAGES_CONFIG,
  extensions: DEFAULT_EXTENSIONS_CONFIG,
  notifications: DEFAULT_NOTIFICATIONS_CONFIG,
  nodes: DEFAULT_NODES_CONFIG,
  queue: DEFAULT_QUEUE_CONFIG,
  capabilities: DEFAULT_CAPABILITIES_CONFIG,
};

/**
 * Reads `<config>/config.yaml`. A missing file gives {@link DEFAULT_CONFIG}; a file that
 * exists but is malformed throws {@link InvalidConfigError} listing every problem, since
 * running with a half-read configuration could offer skills the owner disabled.
 */
export function loadConfig(configFolder: string): SkillgateConfig {
  const file = join(configFolder, CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return DEFAULT_CONFIG;
    throw new InvalidConfigError(file, [
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    ]);
  }
  return parseConfig(text, file);
}

/** Parses configuration text; `file` names it in errors. */
export function parseConfig(text: string, file: string): SkillgateConfig {
  const document = parseDocument(text, { schema: "core", uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new InvalidConfigError(
      file,
      // The yaml library's first line ends with ":" before a code excerpt; keep the line only.
      document.errors.map((error) => (error.message.split("\n")[0] ?? error.message).replace(/:$/, "")),
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    throw new InvalidConfigError(file, [String(error)]);
  }
  if (value === null || value === undefined) return DEFAULT_CONFIG;
  if (!isPlainObject(value)) throw new InvalidConfigError(file, ["the file must be a mapping"]);
  const problems: string[] = [];
  const skills = section(value, "skills", problems);
  const index = section(value, "index", problems);
  const discovery = readDiscoveryConfig(section(value, "discovery", problems), problems);
  const policy = readPolicyConfig(section(value, "policy", problems), problems);
  const runners = readRunnersConfig(section(value, "runners", problems), problems);
  const packages = readPackagesConfig(section(value, "packages", problems), problems);
  const extensions = readExtensionsConfig(section(value, "extensions", problems), problems);
  const notifications = readNotificationsConfig(section(value, "notifications", problems), problems);
  const nodes = readNodesConfig(section(value, "nodes", problems), problems);
  const queue = readQueueConfig(section(value, "queue", problems), problems);
  const capabilities = readCapabilitiesConfig(section(value, "capabilities", problems), problems);
  for (const key of Object.keys(value)) {
    if (
      ![
        "skills",
        "index",
        "discovery",
        "policy",
        "runners",
        "packages",
        "extensions",
        "notifications",
        "nodes",
        "queue",
        "capabilities",
      ].includes(key)
    )
      problems.push(`unknown key "${key}"`);
  }
  const config: SkillgateConfig = {
    skills: {
      disabled: stringList(skills, "disabled", "skills", problems),
      hidden: stringList(skills, "hidden", "skills", problems),
      userFolders: stringList(skills, "user_folders", "skills", problems),
      projectFolders: stringList(skills, "project_folders", "skills", problems),
      packages: stringList(skills, "packages", "skills", problems),
    },
    index: { budget: positiveInteger(index, "budget", "index", DEFAULT_INDEX_BUDGET, problems) },
    discovery,
    policy,
    runners,
    packages,
    extensions,
    notifications,
    nodes,
    queue,
    capabilities,
  };
  for (const key of Object.keys(skills)) {
    if (!["disabled", "hidden", "user_folders", "project_folders", "packages"].includes(key)) {
      problems.push(`unknown key "skills.${key}"`);
    }
  }
  for (const key of Object.keys(index)) {
    if (key !== "budget") problems.push(`unknown key "index.${key}"`);
  }
  if (problems.length > 0) throw new InvalidConfigError(file, problems);
  return config;
}

function section(value: Record<string, unknown>, key: string, problems: string[]): Record<string, unknown> {
  const inner = value[key];
  if (inner === undefined || inner === null) return {};
  if (isPlainObject(inner)) return inner;
  problems.push(`"${key}" must be a mapping`);
  return {};
}

function stringList(
  value: Record<string, unknown>,
  key: string,
  parent: string,
  problems: string[],
): string[] {
  const inner = value[key];
  if (inner === undefined || inner === null) return [];
  if (Array.isArray(inner) && inner.every((item) => typeof item === "string" && item.length > 0))
    return inner;
  problems.push(`"${parent}.${key}" must be a list of text`);
  return [];
}

function positiveInteger(
  value: Record<string, unknown>,
  key: string,
  parent: string,
  fallback: number,
  problems: string[],
): number {
  const inner = value[key];
  if (inner === undefined || inner === null) return fallback;
  if (typeof inner === "number" && Number.isInteger(inner) && inner > 0) return inner;
  problems.push(`"${parent}.${key}" must be a whole number above 0`);
  return fallback;
}

/**
 * The configuration file, re-read when it changes (its inode, size or times move), so a
 * long-running server sees an owner's edit on its next discovery. The same object is
 * returned while the file is unchanged. A malformed edit throws InvalidConfigError.
 */
export class ConfigFile {
  readonly #folder: string;
  #read: StampedRead<SkillgateConfig> | undefined;

  constructor(configFolder: string) {
    this.#folder = configFolder;
  }

  /**
   * The configuration as the file says now. A file changed too recently for its stamp to be
   * trusted (core/file-stamps.ts) is read again on the next call too; the same object comes
   * back while what it says is unchanged.
   */
  current(): SkillgateConfig {
    const previous = this.#read;
    this.#read = rereadIfChanged(join(this.#folder, CONFIG_FILE), previous, () => {
      const config = loadConfig(this.#folder);
      return previous !== undefined && isDeepStrictEqual(config, previous.value) ? previous.value : config;
    });
    return this.#read.value;
  }
}
