import { isForbiddenKey } from "../core/safe-json.js";
import { bounded, mapping, unknownKeys } from "./config-fields.js";

/** The `nodes` section of config.yaml (docs/nodes.md, "The controller"). */
export interface NodesConfig {
  /**
   * Skills restricted to some nodes: `skill → [node, …]`. A skill not listed may go to every
   * node; a skill listed with an empty list goes to none.
   */
  readonly skills: Readonly<Record<string, readonly string[]>>;
  /** How long a skills manifest the controller signs stays valid. */
  readonly manifestTtlSeconds: number;
}

/** Every skill on every node; manifests valid 10 minutes. */
export const DEFAULT_NODES_CONFIG: NodesConfig = { skills: {}, manifestTtlSeconds: 600 };

const BOUNDS = { manifestTtlSeconds: { min: 60, max: 7 * 24 * 3600 } } as const;

/** Reads the `nodes` section, adding every problem to `problems`. */
export function readNodesConfig(section: Record<string, unknown>, problems: string[]): NodesConfig {
  unknownKeys(section, "nodes", ["skills", "manifest_ttl_seconds"], problems);
  const skills = mapping(section, "skills", "nodes", problems);
  const scoped: Record<string, readonly string[]> = {};
  for (const [skill, nodes] of Object.entries(skills)) {
    if (isForbiddenKey(skill)) problems.push(`"nodes.skills.${skill}" is not a skill name`);
    else if (Array.isArray(nodes) && nodes.every((node) => typeof node === "string" && node.length > 0))
      scoped[skill] = [...nodes];
    else problems.push(`"nodes.skills.${skill}" must be a list of node names`);
  }
  return {
    skills: scoped,
    manifestTtlSeconds: bounded(
      section.manifest_ttl_seconds,
      "nodes.manifest_ttl_seconds",
      BOUNDS.manifestTtlSeconds,
      DEFAULT_NODES_CONFIG.manifestTtlSeconds,
      problems,
    ),
  };
}

/** True when `skill` may go to `node` under `config`: listed there, or not restricted at all. */
export function skillAllowedOn(config: NodesConfig, skill: string, node: string): boolean {
  const scope = Object.hasOwn(config.skills, skill) ? config.skills[skill] : undefined;
  return scope === undefined || scope.includes(node);
}
