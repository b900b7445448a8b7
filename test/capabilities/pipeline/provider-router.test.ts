import { describe, expect, it } from "vitest";
import type { PermittedProviders } from "../../../src/capabilities/pipeline/caller-permission.js";
import { routeProvider, routerOrder } from "../../../src/capabilities/pipeline/provider-router.js";
import type { CapabilityProvider } from "../../../src/capabilities/types.js";
import { provider } from "../helpers/memory-index.js";

function permitted(
  providers: CapabilityProvider[],
  refused: Array<[string, string]> = [],
): PermittedProviders {
  return { capability: "workflow.code_review", permitted: providers, refused: new Map(refused) };
}

const ids = (providers: readonly CapabilityProvider[]) => providers.map((item) => item.descriptor.id);

describe("provider router", () => {
  it("Routing: workflow.code_review has multiple providers → Router uses deterministic priority", () => {
    const providers = [
      provider({ id: "zeta", priority: 0, trustLevel: "project", source: "project" }),
      provider({ id: "alpha", priority: 0, trustLevel: "project", source: "project" }),
      provider({ id: "store-one", priority: 0, trustLevel: "project", source: "store" }),
      provider({ id: "owner-one", priority: 0, trustLevel: "owner", source: "project" }),
      provider({ id: "unknown-trust", priority: 0, source: "builtin", trustLevel: undefined as never }),
      provider({ id: "urgent", priority: 10, trustLevel: "assistant_draft", source: "draft" }),
    ];
    // priority first, then trust, then source precedence, then id
    const expected = ["urgent", "owner-one", "store-one", "alpha", "zeta", "unknown-trust"];
    expect(ids(routerOrder(providers))).toEqual(expected);
    // Whatever order the index lists them in, the same provider serves the call.
    for (let shift = 0; shift < providers.length; shift += 1) {
      const rotated = [...providers.slice(shift), ...providers.slice(0, shift)];
      expect(ids(routerOrder(rotated))).toEqual(expected);
      const chosen = routeProvider(permitted(rotated), undefined);
      expect(chosen.ok && chosen.value.descriptor.id).toBe("urgent");
    }
  });

  it("orders unlisted sources after listed ones, by name", () => {
    const providers = [
      provider({ id: "b", source: "zz-custom" }),
      provider({ id: "a", source: "aa-custom" }),
      provider({ id: "c", source: "npm" }),
    ];
    expect(ids(routerOrder(providers))).toEqual(["c", "a", "b"]);
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
