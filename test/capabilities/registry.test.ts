import { describe, expect, it } from "vitest";
import type { CapabilityDecision } from "../../src/capabilities/decide.js";
import { type CapabilityEvent, CapabilityEvents } from "../../src/capabilities/events.js";
import { compareProviders, orderProviders } from "../../src/capabilities/provider-order.js";
import {
  buildSnapshot,
  CapabilityRegistry,
  CapabilitySnapshot,
  type ProviderFactory,
  type RegistryEntry,
} from "../../src/capabilities/registry.js";
import type { CapabilityProvider, SkillDescriptor } from "../../src/capabilities/types.js";
import { DEFAULT_CAPABILITIES_CONFIG } from "../../src/config/capabilities-config.js";
import { capabilityTree, inspectTree } from "../helpers/capability-tree.js";

function descriptor(id: string, changes: Partial<SkillDescriptor> = {}): SkillDescriptor {
  return {
    id,
    kind: "workflow_skill",
    source: "adapter-manifest",
    capabilities: ["workflow.code_review"],
    runtimeGate: { allowedModes: ["normal"], disallowTeamWorker: false, requiresInteractiveUser: false },
    permissions: { fsRead: [], fsWrite: [], network: false, shell: false, env: [], adapterCapabilities: [] },
    trustLevel: "owner",
    priority: 0,
    limits: { timeoutMs: 1000, maxConcurrency: 1 },
    manifestDigest: "0".repeat(64),
    metadata: {},
    scope: "config",
    ...changes,
  };
}

function provider(value: SkillDescriptor, generation = 1): CapabilityProvider {
  return {
    descriptor: value,
    permissions: value.permissions,
    generation,
    invoke: async () => ({ generation }),
  };
}

const entry = (value: SkillDescriptor, runtimes: RegistryEntry["runtimes"] = ["normal"]): RegistryEntry => ({
  provider: provider(value),
  capabilities: value.capabilities,
  runtimes,
});

describe("provider order", () => {
  it("explicit priority, then trust level, then source precedence, then id", () => {
    const items = [
      descriptor("zeta", { trustLevel: "project", scope: "project" }),
      descriptor("alpha", { trustLevel: "project", scope: "project" }),
      descriptor("owner-catalog", { trustLevel: "owner", scope: "catalog" }),
      descriptor("owner-config", { trustLevel: "owner", scope: "config" }),
      descriptor("builtin", { trustLevel: "builtin", scope: "catalog" }),
      descriptor("pinned-high", { trustLevel: "imported", priority: 5 }),
    ];
    expect(orderProviders(items, "workflow.code_review", (item) => item).map((item) => item.id)).toEqual([
      "pinned-high",
      "builtin",
      "owner-config",
      "owner-catalog",
      "alpha",
      "zeta",
    ]);
  });

  it("config.yaml's per-capability priority wins over the provider's, which wins over the manifest's", () => {
    const left = descriptor("left", { priority: 10 });
    const right = descriptor("right", { priority: 0 });
    expect(compareProviders(left, right, "workflow.code_review")).toBeLessThan(0);
    const providers = {
      ...DEFAULT_CAPABILITIES_CONFIG,
      providers: { right: { enabled: true, priority: 20 } },
    };
    expect(compareProviders(left, right, "workflow.code_review", providers)).toBeGreaterThan(0);
    const perCapability = {
      ...providers,
      capabilities: { "workflow.code_review": { enabled: true, priority: { left: 30 } } },
    };
    expect(compareProviders(left, right, "workflow.code_review", perCapability)).toBeLessThan(0);
    // Another capability keeps the provider-level order.
    expect(compareProviders(left, right, "workflow.other", perCapability)).toBeGreaterThan(0);
  });
});

describe("the capability registry", () => {
  it("indexes providers by capability and runtime, in router order; a team entry is invisible to normal", () => {
    const snapshot = new CapabilitySnapshot([
      entry(descriptor("b")),
      entry(descriptor("a")),
      entry(descriptor("worker", { capabilities: ["workflow.swarm"] }), ["team"]),
    ]);
    const registry = new CapabilityRegistry(snapshot);
    expect(registry.providersOf("workflow.code_review", "normal").map((item) => item.descriptor.id)).toEqual([
      "a",
      "b",
    ]);
    expect(registry.capabilities("normal")).toEqual(["workflow.code_review"]);
    expect(registry.capabilities("team")).toEqual(["workflow.swarm"]);
    expect(registry.providersOf("workflow.swarm", "normal")).toEqual([]);
    expect(registry.entry("a")?.runtimes).toEqual(["normal"]);
  });

  it("switch replaces the whole index at once, moves the revision, and a caller holding the old snapshot keeps it", () => {
    const registry = new CapabilityRegistry(new CapabilitySnapshot([entry(descriptor("lua"))]));
    const held = registry.snapshot;
    const seen: number[] = [];
    const stop = registry.onSwitch((next) =>
      seen.push(next.providersOf("workflow.code_review", "normal")[0]?.generation ?? 0),
    );
    const next = held.withProvider(provider(descriptor("lua"), 2));
    const previous = registry.switch(next);
    expect(previous).toBe(held);
    expect(registry.revision).toBe(1);
    expect(registry.providersOf("workflow.code_review", "normal")[0]?.generation).toBe(2);
    expect(held.providersOf("workflow.code_review", "normal")[0]?.generation).toBe(1);
    expect(registry.entry("lua")?.runtimes).toEqual(["normal"]);
    expect(seen).toEqual([2]);
    stop();
    registry.switch(next);
    expect(seen).toEqual([2]);
  });

  it("buildSnapshot makes providers only from providable decisions, through the factory that accepts each", async () => {
    const tree = capabilityTree({ seed: true });
    const decisions = inspectTree(tree, { project: true }).decisions;
    const made: string[] = [];
    const sampling: ProviderFactory = {
      name: "sampling",
      accepts: (value) => value.entry?.type === "sampling",
      create: async ({ descriptor: value, permissions }) => {
        made.push(value.id);
        return { descriptor: value, permissions, generation: 1, invoke: async () => ({}) };
      },
    };
    const failing: ProviderFactory = {
      name: "lua",
      accepts: (value) => value.kind === "lua_skill",
      create: async () => {
        throw new Error("no Lua runtime here");
      },
    };
    const { snapshot, failures } = await buildSnapshot(decisions, [sampling, failing]);
    expect(made).toEqual(["code-review-skill"]);
    expect(snapshot.capabilities("normal")).toEqual(["workflow.code_review"]);
    expect(failures).toEqual([{ id: "config-lint-skill", factory: "lua", message: "no Lua runtime here" }]);
    const none = await buildSnapshot(decisions as readonly CapabilityDecision[], []);
    expect(none.failures.map((item) => item.factory)).toEqual([undefined, undefined]);
  });
});

describe("capability events", () => {
  it("discovery publishes /skill/discovered and /skill/registration/decided; a throwing listener changes nothing", () => {
    const tree = capabilityTree({ seed: true });
    const events = new CapabilityEvents(() => new Date("2026-01-02T03:04:05Z"));
    const seen: CapabilityEvent[] = [];
    events.on(() => {
      throw new Error("a broken observer");
    });
    events.on((event) => seen.push(event));
    inspectTree(tree, { events });
    expect(seen.map((event) => [event.name, "id" in event.data ? event.data.id : undefined])).toEqual([
      ["/skill/discovered", "code-review-skill"],
      ["/skill/registration/decided", "code-review-skill"],
    ]);
    expect(seen[1]).toEqual({
      name: "/skill/registration/decided",
      at: "2026-01-02T03:04:05.000Z",
      data: {
        id: "code-review-skill",
        status: "registered",
        reasons: ["registered"],
        runtime: "normal",
        registered_to: ["normal"],
        detail: "registered for normal",
      },
    });
  });
});
