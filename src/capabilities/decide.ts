import { type CapabilitiesConfig, DEFAULT_CAPABILITIES_CONFIG } from "../config/capabilities-config.js";
import type { DescriptorCandidate } from "./descriptors/candidate.js";
import { type EffectivePermissionsResult, effectivePermissions } from "./permissions.js";
import { type CapabilityProblem, problem } from "./problems.js";
import { type GateDecision, gateDecision } from "./runtime-gate.js";
import type {
  CapabilityPermissions,
  RegistrationDecision,
  RegistrationReason,
  RegistrationStatus,
  RuntimeMode,
  SkillDescriptor,
} from "./types.js";

/**
 * Registration decisions: discovery is not authorisation. Every candidate gets exactly one
 * {@link RegistrationDecision}, by these steps in this order (seed 004), the first that
 * refuses deciding and every later one that also applies adding its reason:
 *
 * 0. switches: the manifest's `enabled: false`, config.yaml's provider switch, the catalog's
 *    `disabled` → `disabled`;
 * 1. manifest: unreadable or malformed files, paths outside the allowed roots → `rejected`;
 * 2. schema: a missing or invalid input or output schema → `rejected` for a manifest,
 *    `display_only` for a bare SKILL.md (`capability_missing_schema`);
 * 3. trust: a source with no level → `rejected` (`trust_level_unknown`);
 * 4. policy: effective = declared ∩ ceiling ∩ owner policy; more than the policy allows →
 *    `rejected` (`policy_denied`);
 * 5. conflict: an id already taken by an earlier candidate → `shadowed`;
 * 6. runtime gate: the gate table's row for the runtime asked about (runtime-gate.ts);
 * 7. registry checks: capabilities left after config.yaml's switches, the adapter's skill
 *    registered in the catalog.
 *
 * Effective permissions are computed here, once; the provider keeps them.
 */

/** Inputs of {@link decideRegistration}. */
export interface DecideOptions {
  /** The runtime the decisions are for (`normal` unless a caller serves another). */
  readonly runtime: RuntimeMode;
  /** config.yaml's `capabilities` section. */
  readonly config?: CapabilitiesConfig;
  /**
   * Compute every field of every decision now. By default a bare SKILL.md's decision (the
   * common case, one per catalog skill) is made directly and its permissions, gate and
   * problems when first read, so listing a large catalog pays little; the values are the same.
   */
  readonly eager?: boolean;
}

/** One candidate's decision and everything it was made from, for the registry and `explain`. */
export interface CapabilityDecision {
  readonly candidate: DescriptorCandidate;
  readonly decision: RegistrationDecision;
  /** The runtime the status is for. */
  readonly runtime: RuntimeMode;
  readonly descriptor: SkillDescriptor | undefined;
  /** Absent when the decision stopped before the policy step. */
  readonly permissions: EffectivePermissionsResult | undefined;
  /** Absent when the decision stopped before the gate step. */
  readonly gate: GateDecision | undefined;
  /** The capabilities it offers once config.yaml's capability switches are applied. */
  readonly capabilities: readonly string[];
  /** Other candidates with the same id (the one this shadows, or the one shadowing it). */
  readonly conflicts: readonly { readonly id: string; readonly location: string }[];
  /** Every problem: the candidate's own, and the ceiling's narrowing warnings. */
  readonly problems: readonly CapabilityProblem[];
  /**
   * True when every check but the runtime gate passed: a provider may be made, and it is
   * registered to `decision.registeredTo` (the runtimes its gate admits) only.
   */
  readonly providable: boolean;
}

const MANIFEST_STEP: ReadonlySet<RegistrationReason> = new Set(["invalid_manifest", "path_not_allowed"]);
const SCHEMA_STEP: ReadonlySet<RegistrationReason> = new Set(["capability_missing_schema", "invalid_schema"]);

/** Decides about every candidate, in discovery order (which is also the conflict order). */
export function decideRegistration(
  candidates: readonly DescriptorCandidate[],
  options: DecideOptions,
): CapabilityDecision[] {
  const config = options.config ?? DEFAULT_CAPABILITIES_CONFIG;
  // Candidates of each id in discovery order: the first keeps the id.
  const byId = new Map<string, DescriptorCandidate[]>();
  for (const candidate of candidates) {
    const same = byId.get(candidate.id);
    if (same === undefined) byId.set(candidate.id, [candidate]);
    else same.push(candidate);
  }
  const anyProviderSettings = Object.keys(config.providers).length > 0;
  const decisions: CapabilityDecision[] = new Array(candidates.length);
  for (const [index, candidate] of candidates.entries()) {
    const same = byId.get(candidate.id) as DescriptorCandidate[];
    decisions[index] =
      options.eager !== true &&
      same.length === 1 &&
      !(anyProviderSettings && config.providers[candidate.id] !== undefined) &&
      isPlainBareSkill(candidate)
        ? new BareDecision(candidate, options.runtime, config, same)
        : decideOne(candidate, {
            runtime: options.runtime,
            config,
            winner: same[0] as DescriptorCandidate,
            same,
          });
  }
  return decisions;
}

/**
 * A bare workflow SKILL.md with a trust level whose only problem is the missing schema (the
 * caller checked it is alone with its id and not switched off in config.yaml): its decision
 * is known without the later steps (`display_only`, `capability_missing_schema`, or
 * `disabled` first).
 */
function isPlainBareSkill(candidate: DescriptorCandidate): boolean {
  return (
    candidate.scope === "catalog" &&
    candidate.kind === "workflow_skill" &&
    candidate.descriptor?.trustLevel !== undefined &&
    candidate.problems.length === 1 &&
    candidate.problems[0]?.code === "capability_missing_schema"
  );
}

// The reasons of a plain bare skill's decision: four lists, shared by every such decision.
const BARE_REASONS: readonly (readonly RegistrationReason[])[] = [
  Object.freeze(["capability_missing_schema"]),
  Object.freeze(["disabled_by_config", "capability_missing_schema"]),
  Object.freeze(["capability_missing_schema", "runtime_gate_mismatch"]),
  Object.freeze(["disabled_by_config", "capability_missing_schema", "runtime_gate_mismatch"]),
];
const NO_CAPABILITIES: readonly string[] = Object.freeze([]);
const NO_CONFLICTS: CapabilityDecision["conflicts"] = Object.freeze([]);

/**
 * {@link decideOne}'s answer for a plain bare skill, made directly: the status, reasons and
 * detail are known from the candidate alone, and the costlier fields (permissions, gate,
 * problems) are the full decision's, computed when first read. A class, so that a catalog
 * of 10,000 skills makes one small object per skill and no closures; a test holds every
 * field equal to the full decision.
 */
class BareDecision implements CapabilityDecision {
  readonly candidate: DescriptorCandidate;
  readonly decision: RegistrationDecision;
  readonly runtime: RuntimeMode;
  readonly descriptor: SkillDescriptor | undefined;
  readonly capabilities = NO_CAPABILITIES;
  readonly conflicts = NO_CONFLICTS;
  readonly providable = false;
  readonly #config: CapabilitiesConfig;
  readonly #same: readonly DescriptorCandidate[];
  #full: CapabilityDecision | undefined;

  constructor(
    candidate: DescriptorCandidate,
    runtime: RuntimeMode,
    config: CapabilitiesConfig,
    same: readonly DescriptorCandidate[],
  ) {
    this.candidate = candidate;
    this.runtime = runtime;
    this.descriptor = candidate.descriptor;
    this.#config = config;
    this.#same = same;
    const admitted = runtime === "normal" || candidate.descriptor?.runtimeGate.allowedModes.includes(runtime);
    const reasons = BARE_REASONS[(candidate.enabled ? 0 : 1) + (admitted === true ? 0 : 2)];
    this.decision = {
      id: candidate.id,
      status: candidate.enabled ? "display_only" : "disabled",
      reasons: reasons as readonly RegistrationReason[],
      detail: candidate.enabled
        ? (candidate.problems[0] as CapabilityProblem).message
        : "the skill is disabled in the catalog",
    };
  }

  get permissions(): EffectivePermissionsResult | undefined {
    return this.#complete().permissions;
  }

  get gate(): GateDecision | undefined {
    return this.#complete().gate;
  }

  get problems(): readonly CapabilityProblem[] {
    return this.#complete().problems;
  }

  #complete(): CapabilityDecision {
    this.#full ??= decideOne(this.candidate, {
      runtime: this.runtime,
      config: this.#config,
      winner: this.candidate,
      same: this.#same,
    });
    return this.#full;
  }
}

interface OneContext {
  readonly runtime: RuntimeMode;
  readonly config: CapabilitiesConfig;
  readonly winner: DescriptorCandidate;
  readonly same: readonly DescriptorCandidate[];
}

function decideOne(candidate: DescriptorCandidate, context: OneContext): CapabilityDecision {
  const { runtime, config } = context;
  const descriptor = candidate.descriptor;
  const reasons: RegistrationReason[] = [];
  const details: string[] = [];
  const problems: CapabilityProblem[] = [...candidate.problems];
  let status: RegistrationStatus | undefined;
  const refuse = (next: RegistrationStatus, reason: RegistrationReason, detail: string): void => {
    if (!reasons.includes(reason)) reasons.push(reason);
    if (status === undefined) {
      status = next;
      details.push(detail);
    }
  };
  const errors = candidate.problems.filter((item) => item.severity === "error");
  const errorFor = (step: ReadonlySet<RegistrationReason> | undefined) =>
    errors.filter((item) => {
      const reason = item.reason ?? "invalid_manifest";
      if (step !== undefined) return step.has(reason);
      return !MANIFEST_STEP.has(reason) && !SCHEMA_STEP.has(reason);
    });
  // 0. Switches.
  const providerSettings = config.providers[candidate.id];
  if (!candidate.enabled)
    refuse(
      "disabled",
      candidate.scope === "catalog" ? "disabled_by_config" : "disabled_by_manifest",
      candidate.scope === "catalog"
        ? "the skill is disabled in the catalog"
        : "the manifest says enabled: false",
    );
  if (providerSettings?.enabled === false)
    refuse(
      "disabled",
      "disabled_by_config",
      `capabilities.providers.${candidate.id}.enabled is false in config.yaml`,
    );
  // 1. The manifest itself.
  for (const item of errorFor(MANIFEST_STEP))
    refuse("rejected", item.reason ?? "invalid_manifest", item.message);
  // 2. Schemas.
  for (const item of errorFor(SCHEMA_STEP))
    refuse(
      candidate.scope === "catalog" ? "display_only" : "rejected",
      item.reason ?? "invalid_schema",
      item.message,
    );
  // 3. Trust.
  if (descriptor !== undefined && descriptor.trustLevel === undefined) {
    const claimed = sourceName(candidate);
    problems.push(
      problem("trust_level_unknown", "error", `source ${claimed} has no trust level skillgate knows`, {
        path: candidate.location,
        ...(candidate.scope !== "catalog" ? { field: "skill.source" } : {}),
      }),
    );
    refuse("rejected", "trust_level_unknown", `source ${claimed} has no trust level skillgate knows`);
  }
  // 4. Policy.
  let permissions: EffectivePermissionsResult | undefined;
  if (descriptor?.trustLevel !== undefined) {
    permissions = effectivePermissions(descriptor.permissions, descriptor.trustLevel, config.permissions);
    for (const line of permissions.narrowed)
      problems.push(
        problem("trust_ceiling_narrowed", "warning", line, {
          path: candidate.location,
          field: "permissions",
        }),
      );
    // A bare SKILL.md asks for no capability permissions: its scripts' access is the run
    // path's (tiers and approvals). What the policy would refuse is told, not decided.
    const asks = candidate.scope !== "catalog";
    for (const line of permissions.denied)
      problems.push(
        problem("policy_denied", asks ? "error" : "warning", asks ? line : `as a capability: ${line}`, {
          path: candidate.location,
          field: "permissions",
        }),
      );
    if (asks && permissions.denied.length > 0)
      refuse("rejected", "policy_denied", `the owner's policy refuses: ${permissions.denied.join("; ")}`);
  }
  // 5. Conflicts: the first candidate of an id keeps it.
  const conflicts = context.same
    .filter((other) => other !== candidate)
    .map((other) => ({ id: other.id, location: other.location }));
  if (context.winner !== candidate)
    refuse(
      "shadowed",
      "shadowed_by_precedence",
      `id ${candidate.id} is already taken by ${context.winner.location}`,
    );
  // 6. The runtime gate.
  const gate = descriptor === undefined ? undefined : gateDecision(descriptor, runtime);
  if (gate !== undefined && !gate.admitted)
    refuse(gate.row.status, gate.row.reason, `${gate.row.condition}: ${gate.row.note}`);
  // 7. Registry checks.
  const capabilities = (descriptor?.capabilities ?? []).filter(
    (name) => config.capabilities[name]?.enabled !== false,
  );
  for (const item of errorFor(undefined)) refuse("rejected", item.reason ?? "invalid_manifest", item.message);
  if (descriptor !== undefined && candidate.scope !== "catalog") {
    if (candidate.skill !== undefined && candidate.skill.catalogDecision === "disabled")
      refuse(
        "disabled",
        "disabled_by_config",
        `the skill ${candidate.skill.name} is disabled in the catalog`,
      );
    else if (candidate.skill !== undefined && candidate.skill.catalogDecision !== "registered")
      refuse(
        "rejected",
        "skill_not_registered",
        `the skill ${candidate.skill.name} is ${candidate.skill.catalogDecision} in the catalog`,
      );
    if (capabilities.length === 0)
      refuse(
        descriptor.capabilities.length > 0 ? "disabled" : "rejected",
        descriptor.capabilities.length > 0 ? "disabled_by_config" : "no_capabilities",
        descriptor.capabilities.length > 0
          ? "every capability it offers is switched off in config.yaml"
          : "it offers no capability",
      );
  }
  const gateOnly =
    status === undefined || (reasons.length > 0 && reasons.every((reason) => reason === gate?.row.reason));
  const providable = descriptor !== undefined && gateOnly && gate !== undefined && gate.runtimes.length > 0;
  const finalStatus: RegistrationStatus = status ?? "registered";
  const decision: RegistrationDecision = {
    id: candidate.id,
    status: finalStatus,
    reasons: reasons.length === 0 ? ["registered"] : reasons,
    detail: status === undefined ? registeredDetail(gate, runtime) : (details[0] ?? finalStatus),
    ...(providable && gate !== undefined ? { registeredTo: gate.runtimes } : {}),
  };
  return {
    candidate,
    decision,
    runtime,
    descriptor,
    permissions,
    gate,
    capabilities,
    conflicts,
    problems,
    providable,
  };
}

function registeredDetail(gate: GateDecision | undefined, runtime: RuntimeMode): string {
  const runtimes = gate?.runtimes ?? [runtime];
  return `registered for ${runtimes.join(", ")}${gate?.row.row === "worker_in_runtime" ? " only" : ""}`;
}

function sourceName(candidate: DescriptorCandidate): string {
  const claimed = candidate.descriptor?.metadata.skill_source;
  return typeof claimed === "string" ? claimed : candidate.source;
}

/** The effective permissions of a decision, or none at all (a refused descriptor gets nothing). */
export function effectiveOf(decision: CapabilityDecision): CapabilityPermissions | undefined {
  return decision.providable ? decision.permissions?.effective : undefined;
}
