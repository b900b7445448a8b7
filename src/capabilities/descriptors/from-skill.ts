import type { SkillDecision } from "../../catalog/decisions.js";
import { canonicalJson, sha256Hex } from "../../core/hashing.js";
import type { JsonValue } from "../../core/safe-json.js";
import { type WorkspaceDeclaration, workspaceAccessOf } from "../../skill/governance.js";
import { DEFAULT_LIMITS } from "../manifests/manifest-fields.js";
import { WORKSPACE_ROOT } from "../permissions.js";
import type { CapabilityProblem } from "../problems.js";
import { RUNTIME_MODES, runtimeModeOf } from "../runtime-gate.js";
import { trustLevelOf } from "../trust.js";
import type {
  CapabilityLimits,
  CapabilityPermissions,
  DescriptorScope,
  RuntimeGate,
  RuntimeMode,
  SkillDescriptor,
  SkillKind,
  TrustLevel,
} from "../types.js";
import type { DescriptorCandidate } from "./candidate.js";

/** The SKILL.md metadata key that makes a skill a `runtime_worker` of that runtime (`team`). */
export const RUNTIME_METADATA_KEY = "skillgate.runtime";

/**
 * The source a catalog decision's skill is judged by: the catalog's source name, except
 * for the managed store, where `storeSourceOf` (given by the app, which can read the
 * store's index) says how the skill got there: `store:owner`, `store:zip`, `store:assistant`…
 */
export type SourceOf = (decision: SkillDecision) => string;

/** The catalog source as it is, for callers without a store. */
export const catalogSource: SourceOf = (decision) => decision.source;

/** The message of a bare SKILL.md's `capability_missing_schema` problem. */
const MISSING_SCHEMA_MESSAGE =
  "a SKILL.md declares no input or output schema; an adapter manifest (<config>/adapters/*.yaml) gives it both";

// A catalog can hold 10,000 skills and every one gets a descriptor: the parts that are the
// same for many (gates, permissions, limits, empty lists) are made once, frozen and shared.
const NO_NAMES: readonly string[] = Object.freeze([]);
const NO_PROBLEMS: readonly CapabilityProblem[] = Object.freeze([]);
const BARE_LIMITS: CapabilityLimits = Object.freeze({
  timeoutMs: DEFAULT_LIMITS.timeoutMs,
  maxConcurrency: DEFAULT_LIMITS.maxConcurrency,
});
const GATES: ReadonlyMap<RuntimeMode, RuntimeGate> = new Map(
  RUNTIME_MODES.map((mode) => [
    mode,
    Object.freeze({
      allowedModes: Object.freeze([mode]),
      disallowTeamWorker: false,
      requiresInteractiveUser: false,
    }),
  ]),
);
/** A bare skill's permissions by its workspace access, network off and on. */
const PERMISSIONS: Readonly<Record<WorkspaceDeclaration, readonly CapabilityPermissions[]>> = {
  none: [barePermissions("none", false), barePermissions("none", true)],
  read: [barePermissions("read", false), barePermissions("read", true)],
  write: [barePermissions("write", false), barePermissions("write", true)],
};

function barePermissions(access: WorkspaceDeclaration, network: boolean): CapabilityPermissions {
  return Object.freeze({
    fsRead: access === "none" ? NO_NAMES : Object.freeze([WORKSPACE_ROOT]),
    fsWrite: access === "write" ? Object.freeze([WORKSPACE_ROOT]) : NO_NAMES,
    network,
    shell: false,
    env: NO_NAMES,
    adapterCapabilities: NO_NAMES,
  });
}

/**
 * The descriptor of a catalog skill. A class rather than a literal because a catalog makes
 * thousands: one shape, no closure per skill, and the digest (of the front matter the
 * catalog already read) computed on the prototype's getter when first asked. The digest is
 * therefore not an own property: read it by name (nothing spreads or serialises a descriptor
 * whole).
 */
class CatalogSkillDescriptor implements SkillDescriptor {
  readonly id: string;
  readonly name: string;
  readonly kind: SkillKind;
  readonly source: string;
  readonly path: string;
  readonly capabilities: readonly string[] = NO_NAMES;
  readonly runtimeGate: RuntimeGate;
  readonly permissions: CapabilityPermissions;
  readonly trustLevel?: TrustLevel;
  readonly priority = 0;
  readonly limits: CapabilityLimits = BARE_LIMITS;
  readonly metadata: { readonly [key: string]: JsonValue };
  readonly scope: DescriptorScope = "catalog";
  readonly skillDirectory?: string;
  readonly #decision: SkillDecision;
  #digest: string | undefined;

  constructor(
    decision: SkillDecision,
    fields: {
      id: string;
      kind: SkillKind;
      source: string;
      gate: RuntimeGate;
      permissions: CapabilityPermissions;
      trustLevel: TrustLevel | undefined;
      description: string;
      directory: string | undefined;
    },
  ) {
    this.id = fields.id;
    this.name = decision.name;
    this.kind = fields.kind;
    this.source = fields.source;
    this.path = decision.location;
    this.runtimeGate = fields.gate;
    this.permissions = fields.permissions;
    if (fields.trustLevel !== undefined) this.trustLevel = fields.trustLevel;
    this.metadata = { description: fields.description, catalog_decision: decision.decision };
    if (fields.directory !== undefined) this.skillDirectory = fields.directory;
    this.#decision = decision;
  }

  get manifestDigest(): string {
    this.#digest ??= sha256Hex(
      canonicalJson({ location: this.#decision.location, fields: this.#decision.skill?.fields ?? null }),
    );
    return this.#digest;
  }
}

/**
 * The descriptor of a skill the catalog found, or undefined for one the catalog rejected or
 * shadowed (its own decision says why; there is nothing to describe). Every other skill is
 * a `workflow_skill`, or a `runtime_worker` when its metadata says `skillgate.runtime: <mode>`
 * with a mode other than `normal` (display-only outside that runtime, registered to it
 * alone). A bare workflow SKILL.md declares no input or output schema, so its descriptor
 * carries `capability_missing_schema`: display-only until an adapter manifest gives it
 * schemas. Nothing here reads a file: the digest is of the front matter
 * the catalog already read, computed when first asked.
 */
export function descriptorFromSkill(
  decision: SkillDecision,
  sourceOf: SourceOf = catalogSource,
): DescriptorCandidate | undefined {
  const skill = decision.skill;
  if (skill === undefined || decision.decision === "rejected" || decision.decision === "shadowed")
    return undefined;
  const declaredRuntime = runtimeModeOf(skill.fields?.metadata?.[RUNTIME_METADATA_KEY]);
  const runtimeWorker = declaredRuntime !== undefined && declaredRuntime !== "normal";
  const source = sourceOf(decision);
  const id = `skill:${decision.name}`;
  const governance = skill.governance;
  const network = governance.network === "bridge" || governance.allowedDomains.length > 0;
  const descriptor = new CatalogSkillDescriptor(decision, {
    id,
    kind: runtimeWorker ? "runtime_worker" : "workflow_skill",
    source,
    gate: GATES.get(declaredRuntime ?? "normal") as RuntimeGate,
    permissions: PERMISSIONS[workspaceAccessOf(governance)][network ? 1 : 0] as CapabilityPermissions,
    trustLevel: trustLevelOf(source),
    description: skill.description,
    directory: skill.directory,
  });
  // A runtime worker is discovery metadata for its runtime, not a capability with schemas.
  const problems: readonly CapabilityProblem[] = runtimeWorker
    ? NO_PROBLEMS
    : [
        {
          code: "capability_missing_schema",
          severity: "error",
          message: MISSING_SCHEMA_MESSAGE,
          reason: "capability_missing_schema",
          path: decision.location,
        },
      ];
  return {
    id,
    kind: descriptor.kind,
    source,
    scope: "catalog",
    location: decision.location,
    descriptor,
    problems,
    enabled: decision.decision !== "disabled",
  };
}
