import type { CapabilityProvider, TrustLevel } from "../types.js";
import type { PermittedProviders } from "./caller-permission.js";
import { refuse, type StepResult } from "./invocation.js";

/**
 * Step 2, the router: which provider serves a call. Deterministic, so the same index always
 * answers the same way (seed 004, "Routing: multiple providers"):
 *
 * 1. explicit `priority`, higher first;
 * 2. trust level, in {@link TRUST_ORDER} (an unknown level last);
 * 3. source precedence, in {@link SOURCE_PRECEDENCE} (an unlisted source after, by name);
 * 4. provider id, in code-unit order.
 *
 * `provider` pins one: it must be a provider of the capability the caller may use, else
 * `provider_unknown` (no such provider) or `caller_not_permitted` (one the caller may not use).
 */

/** Trust levels, most trusted first. */
export const TRUST_ORDER: readonly TrustLevel[] = [
  "builtin",
  "owner",
  "user_folder",
  "project",
  "npm_package",
  "imported",
  "assistant_draft",
];

/** Descriptor sources, first wins a tie of priority and trust. */
export const SOURCE_PRECEDENCE: readonly string[] = [
  "builtin",
  "store",
  "adapter-manifest",
  "capability-manifest",
  "user",
  "project",
  "npm",
  "imported",
  "draft",
];

/** `providers` in router order (a new array). */
export function routerOrder(providers: readonly CapabilityProvider[]): CapabilityProvider[] {
  return [...providers].sort(compareProviders);
}

/** The router's comparison: negative when `left` is chosen before `right`. */
export function compareProviders(left: CapabilityProvider, right: CapabilityProvider): number {
  const a = left.descriptor;
  const b = right.descriptor;
  if (a.priority !== b.priority) return b.priority - a.priority;
  const trust = rank(TRUST_ORDER, a.trustLevel) - rank(TRUST_ORDER, b.trustLevel);
  if (trust !== 0) return trust;
  const source = rank(SOURCE_PRECEDENCE, a.source) - rank(SOURCE_PRECEDENCE, b.source);
  if (source !== 0) return source;
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Picks the provider of a call among the permitted ones, or the pinned one. */
export function routeProvider(
  permitted: PermittedProviders,
  pinned: string | undefined,
): StepResult<CapabilityProvider> {
  if (pinned !== undefined) {
    const found = permitted.permitted.find((provider) => provider.descriptor.id === pinned);
    if (found !== undefined) return { ok: true, value: found };
    const refused = permitted.refused.get(pinned);
    if (refused !== undefined)
      return refuse(
        "caller_not_permitted",
        `HOST: provider ${JSON.stringify(pinned)} cannot be used here: ${refused}.`,
      );
    const ids = routerOrder(permitted.permitted).map((provider) => provider.descriptor.id);
    return refuse(
      "provider_unknown",
      `HOST: ${JSON.stringify(permitted.capability)} has no provider ${JSON.stringify(pinned)}; its providers: ${ids.join(", ")}.`,
    );
  }
  const first = routerOrder(permitted.permitted)[0];
  if (first === undefined)
    return refuse(
      "caller_not_permitted",
      `HOST: ${JSON.stringify(permitted.capability)} has no provider for this caller.`,
    );
  return { ok: true, value: first };
}

function rank<Item>(order: readonly Item[], item: Item | undefined): number {
  const index = item === undefined ? -1 : order.indexOf(item);
  return index === -1 ? order.length : index;
}
