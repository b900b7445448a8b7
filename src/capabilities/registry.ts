import type { CapabilitiesConfig } from "../config/capabilities-config.js";
import type { CapabilityDecision } from "./decide.js";
import type { JsonSchemaObject } from "./manifests/schema-ref.js";
import { orderProviders } from "./provider-order.js";
import type {
  CapabilityIndex,
  CapabilityPermissions,
  CapabilityProvider,
  RuntimeMode,
  SkillDescriptor,
} from "./types.js";

/**
 * The capability registry: registered providers by capability and runtime, held as one
 * immutable {@link CapabilitySnapshot} and replaced whole by {@link CapabilityRegistry.switch}
 * (a new decision, a Lua generation installed). A call reads the snapshot once and keeps
 * it, so it never sees half of one index and half of another; the revision moves on each
 * switch. Providers are made only from decisions that passed every check
 * ({@link CapabilityDecision.providable}), by the {@link ProviderFactory} that accepts them.
 */

/** What a factory is given to build one provider. */
export interface ProviderInput {
  readonly descriptor: SkillDescriptor;
  /** Effective permissions, computed once at decision time: the provider never widens them. */
  readonly permissions: CapabilityPermissions;
  /** The schemas as read (file schemas loaded), to compile for the call's checks. */
  readonly schemas: { readonly input: JsonSchemaObject; readonly output: JsonSchemaObject };
  readonly decision: CapabilityDecision;
}

/** Builds providers of one kind: script and sampling entries (the pipeline), Lua skills (the Lua runtime). */
export interface ProviderFactory {
  /** For messages: `script`, `sampling`, `lua`. */
  readonly name: string;
  /** True when this factory builds `descriptor`'s provider (by kind and entry type). */
  accepts(descriptor: SkillDescriptor): boolean;
  /** Builds the provider; a throw or rejection leaves the descriptor out (`provider_failed`). */
  create(input: ProviderInput): Promise<CapabilityProvider>;
}

/** One registered provider, the capabilities it serves and the runtimes it is registered to. */
export interface RegistryEntry {
  readonly provider: CapabilityProvider;
  readonly capabilities: readonly string[];
  readonly runtimes: readonly RuntimeMode[];
}

/** An immutable index: made once from entries, read by many calls. */
export class CapabilitySnapshot {
  readonly entries: readonly RegistryEntry[];
  readonly #byProvider: ReadonlyMap<string, RegistryEntry>;
  /** `runtime\u0000capability` → providers in router order. */
  readonly #ordered: ReadonlyMap<string, readonly CapabilityProvider[]>;
  readonly #names: ReadonlyMap<RuntimeMode, readonly string[]>;

  /** Builds the index; `config` gives the router's explicit priorities. A repeated provider id keeps the first. */
  constructor(entries: readonly RegistryEntry[], config?: CapabilitiesConfig) {
    const byProvider = new Map<string, RegistryEntry>();
    for (const entry of entries)
      if (!byProvider.has(entry.provider.descriptor.id)) byProvider.set(entry.provider.descriptor.id, entry);
    this.entries = Object.freeze([...byProvider.values()]);
    this.#byProvider = byProvider;
    const grouped = new Map<string, RegistryEntry[]>();
    const names = new Map<RuntimeMode, Set<string>>();
    for (const entry of this.entries)
      for (const runtime of entry.runtimes)
        for (const capability of entry.capabilities) {
          const key = `${runtime}\u0000${capability}`;
          grouped.set(key, [...(grouped.get(key) ?? []), entry]);
          names.set(runtime, (names.get(runtime) ?? new Set()).add(capability));
        }
    const ordered = new Map<string, readonly CapabilityProvider[]>();
    for (const [key, group] of grouped) {
      const capability = key.slice(key.indexOf("\u0000") + 1);
      ordered.set(
        key,
        Object.freeze(
          orderProviders(group, capability, (entry) => entry.provider.descriptor, config).map(
            (entry) => entry.provider,
          ),
        ),
      );
    }
    this.#ordered = ordered;
    this.#names = new Map([...names].map(([runtime, set]) => [runtime, Object.freeze([...set].sort())]));
  }

  /** Providers of `capability` registered to `runtime`, in router order. */
  providersOf(capability: string, runtime: RuntimeMode): readonly CapabilityProvider[] {
    return this.#ordered.get(`${runtime}\u0000${capability}`) ?? [];
  }

  /** Every capability registered to `runtime`, sorted. */
  capabilities(runtime: RuntimeMode): readonly string[] {
    return this.#names.get(runtime) ?? [];
  }

  /** The entry of a provider id. */
  entry(id: string): RegistryEntry | undefined {
    return this.#byProvider.get(id);
  }

  /** A snapshot with `provider` in place of the entry of its id (a new generation), everything else kept. */
  withProvider(provider: CapabilityProvider, config?: CapabilitiesConfig): CapabilitySnapshot {
    const id = provider.descriptor.id;
    const current = this.#byProvider.get(id);
    const entry: RegistryEntry = {
      provider,
      capabilities: current?.capabilities ?? provider.descriptor.capabilities,
      runtimes: current?.runtimes ?? [],
    };
    return new CapabilitySnapshot(
      current === undefined
        ? [...this.entries, entry]
        : this.entries.map((item) => (item === current ? entry : item)),
      config,
    );
  }
}

/** The index every door reads: the current snapshot, switched whole. */
export class CapabilityRegistry implements CapabilityIndex {
  #snapshot: CapabilitySnapshot;
  #revision = 0;
  readonly #listeners = new Set<(next: CapabilitySnapshot, previous: CapabilitySnapshot) => void>();

  constructor(initial: CapabilitySnapshot = new CapabilitySnapshot([])) {
    this.#snapshot = initial;
  }

  /** The snapshot in force; a call keeps the one it started with. */
  get snapshot(): CapabilitySnapshot {
    return this.#snapshot;
  }

  get revision(): number {
    return this.#revision;
  }

  providersOf(capability: string, runtime: RuntimeMode): readonly CapabilityProvider[] {
    return this.#snapshot.providersOf(capability, runtime);
  }

  capabilities(runtime: RuntimeMode): readonly string[] {
    return this.#snapshot.capabilities(runtime);
  }

  /** The entry of a provider id in the snapshot in force. */
  entry(id: string): RegistryEntry | undefined {
    return this.#snapshot.entry(id);
  }

  /**
   * Installs `next` as the whole index, in one assignment, and returns the one it replaced
   * (its providers may still be serving calls that started on it: draining them is the
   * caller's). The revision moves and listeners are told, after the switch.
   */
  switch(next: CapabilitySnapshot): CapabilitySnapshot {
    const previous = this.#snapshot;
    this.#snapshot = next;
    this.#revision += 1;
    for (const listener of this.#listeners) listener(next, previous);
    return previous;
  }

  /** Told after every switch; returns the function that stops it. */
  onSwitch(listener: (next: CapabilitySnapshot, previous: CapabilitySnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** A provider that could not be built, and why. */
export interface ProviderFailure {
  readonly id: string;
  /** The factory that failed, or undefined when none accepts the descriptor. */
  readonly factory: string | undefined;
  readonly message: string;
}

/**
 * Builds a snapshot from decisions: each providable decision whose descriptor a factory
 * accepts becomes an entry, registered to its gate's runtimes only. A descriptor no factory
 * accepts, or whose factory fails, is left out and reported (the decision's owner turns it
 * into `provider_failed`, or leaves it for a factory merged later).
 */
export async function buildSnapshot(
  decisions: readonly CapabilityDecision[],
  factories: readonly ProviderFactory[],
  config?: CapabilitiesConfig,
): Promise<{ snapshot: CapabilitySnapshot; failures: ProviderFailure[] }> {
  const entries: RegistryEntry[] = [];
  const failures: ProviderFailure[] = [];
  for (const decision of decisions) {
    const descriptor = decision.descriptor;
    const permissions = decision.permissions?.effective;
    const schemas = decision.candidate.schemas;
    if (
      !decision.providable ||
      descriptor === undefined ||
      permissions === undefined ||
      schemas === undefined
    )
      continue;
    const factory = factories.find((item) => item.accepts(descriptor));
    if (factory === undefined) {
      failures.push({
        id: descriptor.id,
        factory: undefined,
        message: `no provider factory accepts ${descriptor.kind} ${descriptor.entry?.type ?? ""}`.trim(),
      });
      continue;
    }
    try {
      const provider = await factory.create({ descriptor, permissions, schemas, decision });
      entries.push({
        provider,
        capabilities: decision.capabilities,
        runtimes: decision.decision.registeredTo ?? [],
      });
    } catch (error) {
      failures.push({
        id: descriptor.id,
        factory: factory.name,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { snapshot: new CapabilitySnapshot(entries, config), failures };
}
