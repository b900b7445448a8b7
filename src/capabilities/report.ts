import type { CapabilitiesConfig } from "../config/capabilities-config.js";
import type { CapabilityDecision } from "./decide.js";
import type { CapabilityInspection } from "./discover.js";
import { type CapabilitySandboxPolicy, sandboxPolicyOf } from "./permissions.js";
import type { CapabilityProblem } from "./problems.js";
import { compareProviders, explicitPriority } from "./provider-order.js";
import { admittedModes } from "./runtime-gate.js";
import type {
  CapabilityLimits,
  CapabilityPermissions,
  DescriptorEntry,
  RegistrationReason,
  RegistrationStatus,
  RuntimeGate,
  RuntimeMode,
  SchemaRef,
} from "./types.js";

/**
 * What `list`, `explain`, `doctor` and `skillgate capability list|inspect` show about
 * capability decisions, as plain data (their stable JSON, docs/cli.md). The field order of
 * {@link CapabilityDetail} is seed 004's order for `explain`: the decision first, then the
 * source, schemas, runtime gate, effective permissions, conflicts and diagnostics.
 */

/** One decision in a line: `list` and `capability list`. */
export interface CapabilitySummary {
  readonly id: string;
  readonly kind: string | null;
  readonly status: RegistrationStatus;
  readonly reasons: readonly RegistrationReason[];
  readonly detail: string;
  readonly source: string;
  readonly scope: string;
  readonly trust_level: string | null;
  readonly capabilities: readonly string[];
  readonly registered_to: readonly RuntimeMode[];
  readonly location: string;
}

/** Everything about one decision: `explain` and `capability inspect`. */
export interface CapabilityDetail {
  readonly decision: {
    readonly id: string;
    readonly status: RegistrationStatus;
    readonly reasons: readonly RegistrationReason[];
    readonly detail: string;
    readonly runtime: RuntimeMode;
    readonly registered_to: readonly RuntimeMode[];
  };
  readonly source: {
    readonly kind: string | null;
    readonly source: string;
    readonly scope: string;
    readonly trust_level: string | null;
    readonly location: string;
    readonly path: string | null;
    readonly skill: string | null;
    readonly entry: DescriptorEntry | null;
    readonly manifest_digest: string | null;
  };
  readonly schemas: { readonly input: SchemaRef | null; readonly output: SchemaRef | null };
  readonly runtime_gate:
    | (RuntimeGate & { readonly admits: readonly RuntimeMode[]; readonly row: string | null })
    | null;
  readonly permissions: {
    readonly declared: CapabilityPermissions | null;
    readonly effective: CapabilityPermissions | null;
    readonly sandbox: CapabilitySandboxPolicy | null;
    readonly denied: readonly string[];
    readonly narrowed: readonly string[];
  };
  readonly conflicts: readonly { readonly id: string; readonly location: string }[];
  readonly diagnostics: readonly CapabilityProblem[];
  readonly capabilities: readonly string[];
  readonly priority: number;
  /** The generation a new process serves (1); a running server's later generations are `skillgate generations`. */
  readonly generation: number | null;
  readonly limits: CapabilityLimits | null;
}

/** One capability and its providers in router order: `capability list` and `capability inspect <capability>`. */
export interface CapabilityRoute {
  readonly capability: string;
  /** Registered providers first, in router order, then the rest in the same order. */
  readonly providers: readonly CapabilitySummary[];
}

/** A decision in a line. */
export function summaryOf(item: CapabilityDecision): CapabilitySummary {
  return {
    id: item.decision.id,
    kind: item.candidate.kind ?? null,
    status: item.decision.status,
    reasons: item.decision.reasons,
    detail: item.decision.detail,
    source: item.candidate.source,
    scope: item.candidate.scope,
    trust_level: item.descriptor?.trustLevel ?? null,
    capabilities: item.descriptor?.capabilities ?? [],
    registered_to: item.decision.registeredTo ?? [],
    location: item.candidate.location,
  };
}

/** Everything about a decision, in seed 004's explain order. */
export function detailOf(item: CapabilityDecision, config?: CapabilitiesConfig): CapabilityDetail {
  const descriptor = item.descriptor;
  const effective = item.providable ? (item.permissions?.effective ?? null) : null;
  return {
    decision: {
      id: item.decision.id,
      status: item.decision.status,
      reasons: item.decision.reasons,
      detail: item.decision.detail,
      runtime: item.runtime,
      registered_to: item.decision.registeredTo ?? [],
    },
    source: {
      kind: item.candidate.kind ?? null,
      source: item.candidate.source,
      scope: item.candidate.scope,
      trust_level: descriptor?.trustLevel ?? null,
      location: item.candidate.location,
      path: descriptor?.path ?? null,
      skill: item.candidate.skill?.name ?? null,
      entry: descriptor?.entry ?? null,
      manifest_digest: descriptor?.manifestDigest ?? null,
    },
    schemas: { input: descriptor?.inputSchema ?? null, output: descriptor?.outputSchema ?? null },
    runtime_gate:
      descriptor === undefined
        ? null
        : {
            ...descriptor.runtimeGate,
            admits: admittedModes(descriptor.runtimeGate),
            row: item.gate?.row.row ?? null,
          },
    permissions: {
      declared: descriptor?.permissions ?? null,
      effective,
      sandbox: effective === null ? null : sandboxPolicyOf(effective),
      denied: item.permissions?.denied ?? [],
      narrowed: item.permissions?.narrowed ?? [],
    },
    conflicts: item.conflicts,
    diagnostics: item.problems,
    capabilities: item.capabilities,
    priority: descriptor === undefined ? 0 : explicitPriority(descriptor, item.capabilities[0] ?? "", config),
    generation: item.providable ? 1 : null,
    limits: descriptor?.limits ?? null,
  };
}

/** Every capability any decision offers, each with its providers in router order. */
export function routesOf(inspection: CapabilityInspection, config?: CapabilitiesConfig): CapabilityRoute[] {
  const byCapability = new Map<string, CapabilityDecision[]>();
  for (const item of inspection.decisions)
    for (const capability of item.descriptor?.capabilities ?? [])
      byCapability.set(capability, [...(byCapability.get(capability) ?? []), item]);
  return [...byCapability.keys()].sort().map((capability) => ({
    capability,
    providers: orderedFor(byCapability.get(capability) ?? [], capability, config).map(summaryOf),
  }));
}

/** Decisions offering `capability`, registered first, each group in router order. */
export function orderedFor(
  decisions: readonly CapabilityDecision[],
  capability: string,
  config?: CapabilitiesConfig,
): CapabilityDecision[] {
  const registered = (item: CapabilityDecision) => (item.decision.status === "registered" ? 0 : 1);
  return [...decisions].sort((left, right) => {
    const group = registered(left) - registered(right);
    if (group !== 0) return group;
    if (left.descriptor === undefined || right.descriptor === undefined) return 0;
    return compareProviders(left.descriptor, right.descriptor, capability, config);
  });
}

/** Counts of decisions by status, every status present. */
export function statusCounts(decisions: readonly CapabilityDecision[]): Record<RegistrationStatus, number> {
  const counts: Record<RegistrationStatus, number> = {
    registered: 0,
    display_only: 0,
    disabled: 0,
    shadowed: 0,
    rejected: 0,
  };
  for (const item of decisions) counts[item.decision.status] += 1;
  return counts;
}
