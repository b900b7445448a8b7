import type { CapabilitiesConfig } from "../../config/capabilities-config.js";
import { orderProviders } from "../provider-order.js";
import type { CapabilityProvider } from "../types.js";
import type { PermittedProviders } from "./caller-permission.js";
import { refuse, type StepResult } from "./invocation.js";

/**
 * Step 2, the router: which provider serves a call. Deterministic, so the same index always
 * answers the same way (seed 004, "Routing: multiple providers"), in the registry's one order
 * (provider-order.ts, shared with `skillgate capability inspect`):
 *
 * 1. explicit priority, higher first: config.yaml's per-capability value for the provider,
 *    else its per-provider value, else the manifest's `priority`;
 * 2. trust level, more trusted first (an unknown level last);
 * 3. source precedence: the owner's manifests, then a project's, then bare catalog skills;
 * 4. provider id, in code-unit order.
 *
 * The router sorts whatever the index gives it, so an index that lists providers in another
 * order still routes the same. `provider` pins one: it must be a provider of the capability
 * the caller may use, else `provider_unknown` (no such provider) or `caller_not_permitted`
 * (one the caller may not use).
 */

/** `providers` of `capability` in router order (a new array). */
export function routerOrder(
  providers: readonly CapabilityProvider[],
  capability: string,
  config?: CapabilitiesConfig,
): CapabilityProvider[] {
  return orderProviders(providers, capability, (provider) => provider.descriptor, config);
}

/** Picks the provider of a call among the permitted ones, or the pinned one. */
export function routeProvider(
  permitted: PermittedProviders,
  pinned: string | undefined,
  config?: CapabilitiesConfig,
): StepResult<CapabilityProvider> {
  const named = JSON.stringify(permitted.capability);
  if (pinned !== undefined) {
    const found = permitted.permitted.find((provider) => provider.descriptor.id === pinned);
    if (found !== undefined) return { ok: true, value: found };
    const refused = permitted.refused.get(pinned);
    if (refused !== undefined)
      return refuse(
        "caller_not_permitted",
        `HOST: provider ${JSON.stringify(pinned)} cannot be used here: ${refused}.`,
      );
    const ids = routerOrder(permitted.permitted, permitted.capability, config).map(
      (provider) => provider.descriptor.id,
    );
    return refuse(
      "provider_unknown",
      `HOST: ${named} has no provider ${JSON.stringify(pinned)}; its providers: ${ids.join(", ")}.`,
    );
  }
  const first = routerOrder(permitted.permitted, permitted.capability, config)[0];
  if (first === undefined)
    return refuse("caller_not_permitted", `HOST: ${named} has no provider for this caller.`);
  return { ok: true, value: first };
}
