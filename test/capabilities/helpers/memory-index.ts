import type {
  CapabilityIndex,
  CapabilityPermissions,
  CapabilityProvider,
  InvocationContext,
  RuntimeMode,
  SkillDescriptor,
} from "../../../src/capabilities/types.js";
import type { JsonValue } from "../../../src/core/safe-json.js";

/**
 * An in-test capability index and providers, coded against src/capabilities/types.ts only,
 * so the pipeline's tests do not depend on how descriptors are discovered.
 */

export const NO_PERMISSIONS: CapabilityPermissions = {
  fsRead: [],
  fsWrite: [],
  network: false,
  shell: false,
  env: [],
  adapterCapabilities: [],
};

/** The seed's code-review schemas. */
export const CODE_REVIEW_INPUT = {
  type: "object",
  required: ["scope"],
  properties: {
    scope: { type: "string", enum: ["current_diff", "workspace"] },
    severity: { type: "string", enum: ["all", "major", "critical"] },
  },
} as const;
export const CODE_REVIEW_OUTPUT = {
  type: "object",
  required: ["summary", "findings"],
  properties: { summary: { type: "string" }, findings: { type: "array" } },
} as const;

/** A descriptor with the seed's code-review defaults; override what a test needs. */
export function descriptor(overrides: Partial<SkillDescriptor> & { id: string }): SkillDescriptor {
  return {
    kind: "workflow_skill",
    source: "adapter-manifest",
    capabilities: ["workflow.code_review"],
    runtimeGate: {
      allowedModes: ["normal", "plan", "job"],
      disallowTeamWorker: true,
      requiresInteractiveUser: false,
    },
    inputSchema: { kind: "inline", schema: CODE_REVIEW_INPUT as never },
    outputSchema: { kind: "inline", schema: CODE_REVIEW_OUTPUT as never },
    permissions: NO_PERMISSIONS,
    trustLevel: "owner",
    priority: 0,
    limits: { timeoutMs: 5_000, maxConcurrency: 4 },
    manifestDigest: "ab".repeat(32),
    metadata: {},
    ...overrides,
  };
}

/** A provider answering with `answer(payload, context)` (default: a valid code-review output). */
export function provider(
  overrides: Partial<SkillDescriptor> & { id: string },
  answer: (
    payload: { readonly [key: string]: JsonValue },
    context: InvocationContext,
  ) => Promise<JsonValue> | JsonValue = () => ({ summary: "fine", findings: [] }),
  options: { permissions?: CapabilityPermissions; generation?: number } = {},
): CapabilityProvider & { calls: Array<{ readonly [key: string]: JsonValue }> } {
  const made = descriptor(overrides);
  const calls: Array<{ readonly [key: string]: JsonValue }> = [];
  return {
    descriptor: made,
    permissions: options.permissions ?? made.permissions,
    generation: options.generation ?? 1,
    calls,
    invoke: async (payload, context) => {
      calls.push(payload);
      return answer(payload, context);
    },
  };
}

/** An index over fixed providers: each is visible in the modes its gate allows. */
export function memoryIndex(providers: readonly CapabilityProvider[]): CapabilityIndex {
  return {
    revision: 1,
    providersOf: (capability: string, runtime: RuntimeMode) =>
      providers.filter(
        (item) =>
          item.descriptor.capabilities.includes(capability) &&
          item.descriptor.runtimeGate.allowedModes.includes(runtime),
      ),
    capabilities: (runtime: RuntimeMode) => [
      ...new Set(
        providers
          .filter((item) => item.descriptor.runtimeGate.allowedModes.includes(runtime))
          .flatMap((item) => item.descriptor.capabilities),
      ),
    ],
  };
}
