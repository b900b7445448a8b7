import { describe, expect, it } from "vitest";
import type { PermittedProviders } from "../../../src/capabilities/pipeline/caller-permission.js";
import { routeProvider, routerOrder } from "../../../src/capabilities/pipeline/provider-router.js";
import type { CapabilityProvider } from "../../../src/capabilities/types.js";
import { DEFAULT_CAPABILITIES_CONFIG } from "../../../src/config/capabilities-config.js";
import { provider } from "../helpers/memory-index.js";

const CAPABILITY = "workflow.code_review";

function permitted(
  providers: CapabilityProvider[],
  refused: Array<[string, string]> = [],
): PermittedProviders {
  return { capability: CAPABILITY, permitted: providers, refused: new Map(refused) };
}

const ids = (providers: readonly CapabilityProvider[]) => providers.map((item) => item.descriptor.id);

describe("provider router", () => {
  it("Routing: workflow.code_review has multiple providers → Router uses deterministic priority", () => {
    const providers = [
      provider({ id: "zeta", priority: 0, trustLevel: "project", scope: "project" }),
      provider({ id: "alpha", priority: 0, trustLevel: "project", scope: "project" }),
      provider({ id: "owner-manifest", priority: 0, trustLevel: "project", scope: "config" }),
      provider({ id: "owner-trust", priority: 0, trustLevel: "owner", scope: "catalog" }),
      provider({ id: "unknown-trust", priority: 0, scope: "config", trustLevel: undefined as never }),
      provider({ id: "urgent", priority: 10, trustLevel: "assistant_draft", scope: "catalog" }),
    ];
    // priority first, then trust, then source precedence (config, project, catalog), then id
    const expected = ["urgent", "owner-trust", "owner-manifest", "alpha", "zeta", "unknown-trust"];
    expect(ids(routerOrder(providers, CAPABILITY))).toEqual(expected);
    // Whatever order the index lists them in, the same provider serves the call.
    for (let shift = 0; shift < providers.length; shift += 1) {
      const rotated = [...providers.slice(shift), ...providers.slice(0, shift)];
      expect(ids(routerOrder(rotated, CAPABILITY))).toEqual(expected);
      const chosen = routeProvider(permitted(rotated), undefined);
      expect(chosen.ok && chosen.value.descriptor.id).toBe("urgent");
    }
  });

  it("takes config.yaml's explicit priority for the capability over the manifest's", () => {
    const providers = [provider({ id: "first", priority: 5 }), provider({ id: "second", priority: 0 })];
    const config = {
      ...DEFAULT_CAPABILITIES_CONFIG,
      capabilities: { [CAPABILITY]: { priority: { second: 50 } } },
    } as never;
    expect(ids(routerOrder(providers, CAPABILITY, config))).toEqual(["second", "first"]);
    const chosen = routeProvider(permitted(providers), undefined, config);
    expect(chosen.ok && chosen.value.descriptor.id).toBe("second");
  });

  it("lets provider pin one", () => {
    const providers = [provider({ id: "first", priority: 5 }), provider({ id: "second" })];
    const pinned = routeProvider(permitted(providers), "second");
    expect(pinned.ok && pinned.value.descriptor.id).toBe("second");
  });

  it("refuses an unknown pinned provider with provider_unknown", () => {
    const result = routeProvider(permitted([provider({ id: "first" })]), "ghost");
    expect(!result.ok && result.refusal.code).toBe("provider_unknown");
    expect(!result.ok && result.refusal.message).toMatch(/^HOST: .*first/);
  });

  it("refuses a pinned provider the caller may not use with caller_not_permitted", () => {
    const result = routeProvider(
      permitted([provider({ id: "first" })], [["writer", "plan mode only reads"]]),
      "writer",
    );
    expect(!result.ok && result.refusal.code).toBe("caller_not_permitted");
  });
});
