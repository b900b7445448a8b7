import type { CapabilitiesConfig } from "../config/capabilities-config.js";
import { trustRank } from "./trust.js";
import type { DescriptorScope, SkillDescriptor } from "./types.js";

/**
 * The router's deterministic order among the providers of one capability: explicit priority
 * (higher first), then trust level (more trusted first), then source precedence (the
 * owner's manifests, then a project's, then bare catalog skills), then id (UTF-16 order).
 * Explicit priority is config.yaml's per-capability value for the provider, else its
 * per-provider value, else the manifest's `priority`. A call that pins a `provider` skips
 * the order; everything else takes the first provider that may serve it.
 */

/** Source precedence: lower first. */
const SCOPE_RANK: Readonly<Record<DescriptorScope, number>> = { config: 0, project: 1, catalog: 2 };

/** The explicit priority of `descriptor` for `capability`. */
export function explicitPriority(
  descriptor: Pick<SkillDescriptor, "id" | "priority">,
  capability: string,
  config: CapabilitiesConfig | undefined,
): number {
  const perCapability = config?.capabilities[capability]?.priority[descriptor.id];
  if (perCapability !== undefined) return perCapability;
  return config?.providers[descriptor.id]?.priority ?? descriptor.priority;
}

/** Compares two descriptors for `capability` in router order (negative: `left` first). */
export function compareProviders(
  left: Pick<SkillDescriptor, "id" | "priority" | "trustLevel" | "scope">,
  right: Pick<SkillDescriptor, "id" | "priority" | "trustLevel" | "scope">,
  capability: string,
  config?: CapabilitiesConfig,
): number {
  const priority = explicitPriority(right, capability, config) - explicitPriority(left, capability, config);
  if (priority !== 0) return priority;
  const trust = trustRank(left.trustLevel) - trustRank(right.trustLevel);
  if (trust !== 0) return trust;
  const scope = SCOPE_RANK[left.scope ?? "catalog"] - SCOPE_RANK[right.scope ?? "catalog"];
  if (scope !== 0) return scope;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/** `items` sorted in router order for `capability` (a new array; the input is not changed). */
export function orderProviders<Item>(
  items: readonly Item[],
  capability: string,
  descriptorOf: (item: Item) => Pick<SkillDescriptor, "id" | "priority" | "trustLevel" | "scope">,
  config?: CapabilitiesConfig,
): Item[] {
  return [...items].sort((left, right) =>
    compareProviders(descriptorOf(left), descriptorOf(right), capability, config),
  );
}
