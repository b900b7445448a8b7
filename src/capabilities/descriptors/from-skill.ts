import type { SkillDecision } from "../../catalog/decisions.js";
import { canonicalJson, sha256Hex } from "../../core/hashing.js";
import { workspaceAccessOf } from "../../skill/governance.js";
import { DEFAULT_LIMITS } from "../manifests/manifest-fields.js";
import { WORKSPACE_ROOT } from "../permissions.js";
import { problem } from "../problems.js";
import { runtimeModeOf } from "../runtime-gate.js";
import { trustLevelOf } from "../trust.js";
import type { CapabilityPermissions, RuntimeGate, SkillDescriptor } from "../types.js";
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
  const metadata = skill.fields?.metadata ?? {};
  const declaredRuntime = runtimeModeOf(metadata[RUNTIME_METADATA_KEY]);
  const runtimeWorker = declaredRuntime !== undefined && declaredRuntime !== "normal";
  const runtimeGate: RuntimeGate = {
    allowedModes: [declaredRuntime ?? "normal"],
    disallowTeamWorker: false,
    requiresInteractiveUser: false,
  };
  const source = sourceOf(decision);
  const trustLevel = trustLevelOf(source);
  const id = `skill:${decision.name}`;
  const access = workspaceAccessOf(skill.governance);
  const permissions: CapabilityPermissions = {
    fsRead: access === "none" ? [] : [WORKSPACE_ROOT],
    fsWrite: access === "write" ? [WORKSPACE_ROOT] : [],
    network: skill.governance.network === "bridge" || skill.governance.allowedDomains.length > 0,
    shell: false,
    env: [],
    adapterCapabilities: [],
  };
  let digest: string | undefined;
  const descriptor: SkillDescriptor = {
    id,
    name: decision.name,
    kind: runtimeWorker ? "runtime_worker" : "workflow_skill",
    source,
    path: decision.location,
    capabilities: [],
    runtimeGate,
    permissions,
    ...(trustLevel !== undefined ? { trustLevel } : {}),
    priority: 0,
    limits: { timeoutMs: DEFAULT_LIMITS.timeoutMs, maxConcurrency: DEFAULT_LIMITS.maxConcurrency },
    get manifestDigest() {
      digest ??= sha256Hex(canonicalJson({ location: decision.location, fields: skill.fields ?? null }));
      return digest;
    },
    metadata: { description: skill.description, catalog_decision: decision.decision },
    scope: "catalog",
    ...(skill.directory !== undefined ? { skillDirectory: skill.directory } : {}),
  };
  // A runtime worker is discovery metadata for its runtime, not a capability with schemas.
  const problems = runtimeWorker
    ? []
    : [
        problem(
          "capability_missing_schema",
          "error",
          "a SKILL.md declares no input or output schema; an adapter manifest (<config>/adapters/*.yaml) gives it both",
          { path: decision.location },
        ),
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
