import { isPlainObject } from "../core/safe-json.js";
import { bounded, mapping, unknownKeys } from "./config-fields.js";

/**
 * The `capabilities` section of config.yaml (docs/capabilities.md): the owner's policy, the
 * most any skill's capability may be given whatever it declares and whatever its trust level
 * allows, and per provider and per capability switches and routing priorities.
 */
export interface CapabilitiesConfig {
  /** The owner's policy: a descriptor asking for more than this is `policy_denied`. */
  readonly permissions: OwnerPermissionPolicy;
  /** By provider id (a manifest's `id`, or `skill:<name>`). */
  readonly providers: Readonly<Record<string, ProviderSettings>>;
  /** By capability name (`workflow.code_review`). */
  readonly capabilities: Readonly<Record<string, CapabilitySettings>>;
}

/** What the owner allows any capability, at most. */
export interface OwnerPermissionPolicy {
  readonly readWorkspace: boolean;
  readonly writeWorkspace: boolean;
  readonly network: boolean;
  readonly shell: boolean;
  /** Environment variable names that may be handed to a skill that declares them. */
  readonly env: readonly string[];
}

/** One provider's switch and explicit routing priority (higher is tried first). */
export interface ProviderSettings {
  readonly enabled: boolean;
  readonly priority?: number;
}

/** One capability's switch and per-provider priorities, which win over the provider's own. */
export interface CapabilitySettings {
  readonly enabled: boolean;
  readonly priority: Readonly<Record<string, number>>;
}

/** Reading the workspace only: no writes, network, shell or environment unless the owner says so. */
export const DEFAULT_OWNER_PERMISSION_POLICY: OwnerPermissionPolicy = {
  readWorkspace: true,
  writeWorkspace: false,
  network: false,
  shell: false,
  env: [],
};

/** The section when config.yaml says nothing. */
export const DEFAULT_CAPABILITIES_CONFIG: CapabilitiesConfig = {
  permissions: DEFAULT_OWNER_PERMISSION_POLICY,
  // Without a prototype: a provider id such as `constructor` must not find Object's own members.
  providers: Object.freeze(Object.create(null)),
  capabilities: Object.freeze(Object.create(null)),
};

const PRIORITY = { min: -1000, max: 1000 } as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads the `capabilities` section, adding every problem to `problems`. */
export function readCapabilitiesConfig(
  section: Record<string, unknown>,
  problems: string[],
): CapabilitiesConfig {
  unknownKeys(section, "capabilities", ["permissions", "providers", "capabilities"], problems);
  const permissions = mapping(section, "permissions", "capabilities", problems);
  unknownKeys(
    permissions,
    "capabilities.permissions",
    ["read_workspace", "write_workspace", "network", "shell", "env"],
    problems,
  );
  const defaults = DEFAULT_OWNER_PERMISSION_POLICY;
  const where = (key: string) => `capabilities.permissions.${key}`;
  return {
    permissions: {
      readWorkspace: flag(
        permissions.read_workspace,
        where("read_workspace"),
        defaults.readWorkspace,
        problems,
      ),
      writeWorkspace: flag(
        permissions.write_workspace,
        where("write_workspace"),
        defaults.writeWorkspace,
        problems,
      ),
      network: flag(permissions.network, where("network"), defaults.network, problems),
      shell: flag(permissions.shell, where("shell"), defaults.shell, problems),
      env: envNames(permissions.env, where("env"), problems),
    },
    providers: readProviders(mapping(section, "providers", "capabilities", problems), problems),
    capabilities: readCapabilities(mapping(section, "capabilities", "capabilities", problems), problems),
  };
}

function readProviders(
  section: Record<string, unknown>,
  problems: string[],
): Record<string, ProviderSettings> {
  const providers: Record<string, ProviderSettings> = Object.create(null);
  for (const [id, value] of Object.entries(section)) {
    const where = `capabilities.providers.${id}`;
    if (!isPlainObject(value)) {
      problems.push(`"${where}" must be a mapping`);
      continue;
    }
    unknownKeys(value, where, ["enabled", "priority"], problems);
    const priority =
      value.priority === undefined || value.priority === null
        ? undefined
        : bounded(value.priority, `${where}.priority`, PRIORITY, 0, problems);
    providers[id] = {
      enabled: flag(value.enabled, `${where}.enabled`, true, problems),
      ...(priority !== undefined ? { priority } : {}),
    };
  }
  return providers;
}

function readCapabilities(
  section: Record<string, unknown>,
  problems: string[],
): Record<string, CapabilitySettings> {
  const capabilities: Record<string, CapabilitySettings> = Object.create(null);
  for (const [name, value] of Object.entries(section)) {
    const where = `capabilities.capabilities.${name}`;
    if (!isPlainObject(value)) {
      problems.push(`"${where}" must be a mapping`);
      continue;
    }
    unknownKeys(value, where, ["enabled", "priority"], problems);
    const priorities = mapping(value, "priority", where, problems);
    const priority: Record<string, number> = Object.create(null);
    for (const [provider, number] of Object.entries(priorities))
      priority[provider] = bounded(number, `${where}.priority.${provider}`, PRIORITY, 0, problems);
    capabilities[name] = { enabled: flag(value.enabled, `${where}.enabled`, true, problems), priority };
  }
  return capabilities;
}

function flag(value: unknown, where: string, fallback: boolean, problems: string[]): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  problems.push(`"${where}" must be true or false`);
  return fallback;
}

function envNames(value: unknown, where: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item === "string" && ENV_NAME.test(item)))
    return value;
  problems.push(`"${where}" must be a list of environment variable names`);
  return [];
}
