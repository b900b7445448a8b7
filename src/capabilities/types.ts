import type { JsonValue } from "../core/safe-json.js";

/**
 * The capability plane's shared vocabulary (docs/capabilities.md; seed 004). Discovery
 * yields {@link SkillDescriptor}s; each gets a {@link RegistrationDecision}; only descriptors
 * that passed every check become {@link CapabilityProvider}s in the {@link CapabilityIndex};
 * callers reach providers through the one invocation pipeline, never directly.
 */

/** The three classes of skill, each with its own authority model. */
export type SkillKind = "workflow_skill" | "runtime_worker" | "lua_skill";

/** Where a descriptor came from; the trust level follows from it. */
export type TrustLevel =
  | "builtin"
  | "owner"
  | "user_folder"
  | "project"
  | "npm_package"
  | "imported"
  | "assistant_draft";

/** The runtimes a turn runs in: chat, plan mode, a job, an orchestrating host's worker. */
export type RuntimeMode = "normal" | "plan" | "job" | "team";

/** Seed 004's decisions. */
export type RegistrationStatus = "registered" | "rejected" | "display_only" | "disabled" | "shadowed";

/** The reason codes of a decision (seed 004's and skillgate's own). */
export type RegistrationReason =
  | "registered"
  | "capability_missing_schema"
  | "runtime_gate_mismatch"
  | "policy_denied"
  | "runtime_worker_display_only"
  | "trust_level_unknown"
  | "path_not_allowed"
  | "invalid_manifest"
  | "invalid_schema"
  | "disabled_by_manifest"
  | "shadowed_by_precedence"
  | "health_check_failed"
  | "lua_load_failed"
  | "no_manifest"
  // skillgate's own, added with the descriptors (docs/capabilities.md, "Descriptors and decisions").
  | "disabled_by_config"
  | "skill_not_found"
  | "skill_not_registered"
  | "invalid_capability_name"
  | "no_capabilities"
  | "provider_failed";

/** Which runtimes may use a skill. */
export interface RuntimeGate {
  readonly allowedModes: readonly RuntimeMode[];
  readonly disallowTeamWorker: boolean;
  readonly requiresInteractiveUser: boolean;
}

/** File-system, network, shell and adapter permissions, declared or effective. */
export interface CapabilityPermissions {
  /** Roots a skill may read: `workspace`, or canonical absolute folders. */
  readonly fsRead: readonly string[];
  readonly fsWrite: readonly string[];
  readonly network: boolean;
  readonly shell: boolean;
  /** Environment variable names the skill may be given (never chosen by a payload). */
  readonly env: readonly string[];
  /** Capabilities a Lua skill may call through `ctx.tools.invoke_agent`. */
  readonly adapterCapabilities: readonly string[];
}

/** A schema inline or by canonical file path, as the manifest gave it. */
export type SchemaRef =
  | { readonly kind: "inline"; readonly schema: { readonly [key: string]: JsonValue } }
  | { readonly kind: "file"; readonly path: string };

/** Per-capability limits. */
export interface CapabilityLimits {
  readonly timeoutMs: number;
  readonly maxConcurrency: number;
  /** For a `sampling` entry: the prompt's byte cap. */
  readonly maxPromptBytes?: number;
}

/** The normalised form of every discovered skill, before anything runtime exists. */
export interface SkillDescriptor {
  /** The provider id (the manifest's `id`, or `skill:<name>` for a bare SKILL.md). */
  readonly id: string;
  readonly name?: string;
  readonly kind: SkillKind;
  /** Where it was found: `builtin`, `store`, `user`, `project`, `npm`, `adapter-manifest`, `capability-manifest`, … */
  readonly source: string;
  readonly path?: string;
  readonly capabilities: readonly string[];
  readonly runtimeGate: RuntimeGate;
  readonly inputSchema?: SchemaRef;
  readonly outputSchema?: SchemaRef;
  readonly permissions: CapabilityPermissions;
  /** Undefined when the source is not one skillgate knows: `trust_level_unknown`. */
  readonly trustLevel?: TrustLevel;
  /** Explicit routing priority (higher first). */
  readonly priority: number;
  readonly limits: CapabilityLimits;
  /** SHA-256 hex of the manifest bytes (or the SKILL.md's content hash). */
  readonly manifestDigest: string;
  readonly metadata: { readonly [key: string]: JsonValue };
  /** Whose manifest it is: the owner's (`<config>`), a project's (with the opt-in), or none (a bare SKILL.md). */
  readonly scope?: DescriptorScope;
  /** The canonical path of the manifest file, for manifests. */
  readonly manifestPath?: string;
  /** How a call runs: a script of the skill, the client's model (sampling), or a Lua function. */
  readonly entry?: DescriptorEntry;
  /** The skill folder (canonical) a workflow skill's scripts live in. */
  readonly skillDirectory?: string;
}

/** Where a descriptor's manifest lives; also the source precedence of the router (config first). */
export type DescriptorScope = "config" | "project" | "catalog";

/**
 * How a provider runs a call. `script`: `script` is a path inside the skill folder, run
 * through the runner router with the validated payload as its arguments. `sampling`: the
 * skill's body and the payload go to the calling client's model (the seed's `codex_skill`
 * reads as this). `lua`: `script` is the canonical Lua file, `entry` and `healthCheck` its
 * function names.
 */
export type DescriptorEntry =
  | { readonly type: "script"; readonly script: string }
  | { readonly type: "sampling" }
  | { readonly type: "lua"; readonly script: string; readonly entry: string; readonly healthCheck?: string };

/** One descriptor's decision, with every reason that applied (the first decides). */
export interface RegistrationDecision {
  readonly id: string;
  readonly status: RegistrationStatus;
  readonly reasons: readonly RegistrationReason[];
  /** A line a person reads (`explain`, `doctor`). */
  readonly detail: string;
  /** For `runtime_worker`: the runtime it is registered to, and only there. */
  readonly registeredTo?: readonly RuntimeMode[];
}

/** What the pipeline hands a provider: the validated payload and the call's context. */
export interface InvocationContext {
  readonly requestId: string;
  readonly traceId: string;
  readonly agentId: string;
  readonly runtimeMode: RuntimeMode;
  readonly signal: AbortSignal;
  /** The effective permissions the call runs under (never wider than the provider's). */
  readonly permissions: CapabilityPermissions;
  /** Records a workspace path the call read or wrote, for the audit (seed 004, "Audit" row). */
  touched(path: string, access: "read" | "write"): void;
  /** The caller's workspace (absolute), what `workspace` in the permissions' roots means for this call. */
  readonly workspace?: string;
  /** The chat or job the call is filed under, for what a provider's run adds to the audit trail. */
  readonly scope?: { readonly kind: "chat" | "job"; readonly id: string };
  /** MCP sampling with the calling client's model, present only when that client supports it. */
  readonly sample?: Sampler;
  /** A person is there to answer (passed on to nested calls a Lua skill makes). */
  readonly interactive?: boolean;
  /** The id of the provider serving this call (a nested call's caller). */
  readonly provider?: string;
}

/** Asks the calling client's model through MCP sampling (`sampling/createMessage`); answers its text. */
export type Sampler = (request: {
  readonly system: string;
  readonly prompt: string;
  readonly maxTokens: number;
  readonly signal: AbortSignal;
}) => Promise<string>;

/** A registered provider of one or more capabilities. */
export interface CapabilityProvider {
  readonly descriptor: SkillDescriptor;
  /** Effective permissions: declared ∩ trust ceiling ∩ the owner's policy, computed once. */
  readonly permissions: CapabilityPermissions;
  /** The generation serving calls (1 for providers that do not reload). */
  readonly generation: number;
  /** Runs one call. Input was checked against the input schema; the pipeline checks the output. */
  invoke(payload: { readonly [key: string]: JsonValue }, context: InvocationContext): Promise<JsonValue>;
}

/** The registered providers by capability, switched as a whole when a generation is installed. */
export interface CapabilityIndex {
  /** Providers of a capability visible in a runtime, in router order is the router's job. */
  providersOf(capability: string, runtime: RuntimeMode): readonly CapabilityProvider[];
  /** Every capability name registered for a runtime. */
  capabilities(runtime: RuntimeMode): readonly string[];
  /** Moves when the index is switched (a reload, a new decision). */
  readonly revision: number;
}

/** An index with nothing registered: the default until capabilities are discovered. */
export const EMPTY_CAPABILITY_INDEX: CapabilityIndex = {
  providersOf: () => [],
  capabilities: () => [],
  revision: 0,
};
