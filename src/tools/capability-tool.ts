import { checkCallerPermission, isReadOnly } from "../capabilities/pipeline/caller-permission.js";
import type { Caller } from "../capabilities/pipeline/invocation.js";
import type { CapabilityPipeline } from "../capabilities/pipeline/invoke.js";
import { routeProvider, routerOrder } from "../capabilities/pipeline/provider-router.js";
import { schemaOf } from "../capabilities/pipeline/schema-source.js";
import type { CapabilityProvider } from "../capabilities/types.js";
import { isPlainObject, type JsonValue } from "../core/safe-json.js";
import type { CallStatus } from "../observe/events.js";
import type { JsonSchema } from "../skill/parameters-schema.js";
import { readInput } from "./skill-tools.js";
import type { CallSubject, PreparedCall, ToolDefinition } from "./tool.js";

/**
 * The model's doors to the capability plane (docs/capabilities.md, "Calling a capability"):
 * `invoke_capability` in a turn, and each registered capability as its own tool (MCP). Both
 * go through the broker like every tool, then through the one pipeline.
 *
 * The tier of a call is decided on the provider the router would choose now: `read` when its
 * effective permissions are read-only (no write roots, no shell, no network), `change`
 * otherwise, so plan mode's rules and the owner's ask rules apply as to any other change. The
 * provider found when the call is prepared is pinned for its run, so the policy's decision is
 * about the provider that runs. A call the pipeline will refuse anyway (no such capability,
 * not permitted) is classified `read`: nothing runs, and the pipeline records the refusal.
 */

/** What a capability tool needs from its turn. */
export interface CapabilityToolEnvironment {
  readonly pipeline: CapabilityPipeline;
  /** The turn's caller, without the call's own signal and sampler. */
  readonly caller: () => Omit<Caller, "signal" | "sample">;
}

/** An `invoke_capability` call after it was read once. */
export interface CapabilityCallInput {
  readonly capability: string;
  readonly provider?: string;
  readonly payload: unknown;
  readonly timeoutMs?: number;
}

const INVOKE_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    capability: {
      type: "string",
      minLength: 1,
      description: 'The capability\'s name, such as "workflow.code_review".',
    },
    provider: {
      type: "string",
      minLength: 1,
      description: "Only to pin one provider by id; leave it out to let the router choose.",
    },
    payload: {
      type: "object",
      description: "The capability's input: a JSON object matching its input schema.",
    },
    timeout_ms: { type: "integer", minimum: 1, description: "Optional: a shorter timeout in milliseconds." },
  },
  required: ["capability", "payload"],
  additionalProperties: false,
};

/** The turn's `invoke_capability` tool. */
export function invokeCapabilityTool(
  environment: CapabilityToolEnvironment,
): ToolDefinition<CapabilityCallInput> {
  return {
    name: "invoke_capability",
    tier: "by-skill",
    description:
      "Invoke a registered capability with a JSON payload; the answer is the capability's JSON output. " +
      `Send {"capability": "NAME", "payload": {...}}, for example {"capability": "workflow.code_review", "payload": {"scope": "current_diff"}}. ` +
      `Capabilities available now: ${capabilityList(environment)}. ` +
      "A payload is plain data: never file paths outside the workspace, commands, shell, environment variables or modes. Lines starting with HOST: come from skillgate.",
    inputSchema: INVOKE_SCHEMA,
    prepare: (raw) => {
      const shape = readInput<{
        capability: string;
        provider?: string;
        payload: unknown;
        timeout_ms?: number;
      }>(INVOKE_SCHEMA, raw, "read", "invoke a capability");
      if (!shape.ok) return shape;
      const { capability, provider, payload, timeout_ms } = shape.input;
      return prepareCall(environment, {
        capability,
        payload,
        ...(provider !== undefined ? { provider } : {}),
        ...(timeout_ms !== undefined ? { timeoutMs: timeout_ms } : {}),
      });
    },
    execute: (input, context) => executeCall(environment, input, "invoke_capability", context),
  };
}

/**
 * A capability as its own tool (MCP lists every registered capability so): its name, the input
 * schema of the provider the router chooses first, that provider's output schema (a client
 * gets `structuredContent`), and the whole tool input as the payload.
 */
export function capabilityTool(
  environment: CapabilityToolEnvironment,
  capability: string,
): ToolDefinition<CapabilityCallInput> | undefined {
  const first = routerOrder(
    environment.pipeline.index().providersOf(capability, environment.caller().runtimeMode),
    capability,
    environment.pipeline.config(),
  )[0];
  if (first === undefined) return undefined;
  const input = schemaOf(first.descriptor.inputSchema);
  const output = schemaOf(first.descriptor.outputSchema);
  if (!isPlainObject(input) || !isPlainObject(output)) return undefined;
  const description = first.descriptor.metadata.description;
  return {
    name: capability,
    tier: isReadOnly(first.permissions) ? "read" : "change",
    description:
      typeof description === "string"
        ? description
        : `Invoke the capability ${capability} (provider ${first.descriptor.id}); the input is its payload.`,
    inputSchema: input,
    outputSchema: output,
    prepare: (raw) => prepareCall(environment, { capability, payload: raw ?? {} }),
    execute: (call, context) => executeCall(environment, call, capability, context),
  };
}

/** Classifies a call on the provider the router would choose, and pins it. */
function prepareCall(
  environment: CapabilityToolEnvironment,
  input: CapabilityCallInput,
): PreparedCall<CapabilityCallInput> {
  const caller = environment.caller();
  const summary = `invoke ${input.capability}`;
  const permitted = checkCallerPermission(caller, input.capability, environment.pipeline.index());
  const routed = permitted.ok
    ? routeProvider(permitted.value, input.provider, environment.pipeline.config())
    : undefined;
  if (routed === undefined || !routed.ok) return { ok: true, input, subject: { tier: "read", summary } };
  const provider = routed.value;
  return {
    ok: true,
    input: { ...input, provider: provider.descriptor.id },
    subject: subjectOf(provider, summary),
  };
}

function subjectOf(provider: CapabilityProvider, summary: string): CallSubject {
  const writes = provider.permissions.fsWrite.length > 0 ? ", which may write files" : "";
  return {
    tier: isReadOnly(provider.permissions) ? "read" : "change",
    summary: `${summary} through ${provider.descriptor.id}${writes}`,
  };
}

async function executeCall(
  environment: CapabilityToolEnvironment,
  input: CapabilityCallInput,
  tool: string,
  context: { readonly signal?: AbortSignal; readonly sample?: Caller["sample"] },
): Promise<{ text: string; status: CallStatus }> {
  const caller: Caller = {
    ...environment.caller(),
    ...(context.signal !== undefined ? { signal: context.signal } : {}),
    ...(context.sample !== undefined ? { sample: context.sample } : {}),
  };
  const result = await environment.pipeline.invoke(
    {
      capability: input.capability,
      payload: input.payload,
      ...(input.provider !== undefined ? { provider: input.provider } : {}),
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    },
    caller,
    tool,
  );
  if (result.ok) return { text: JSON.stringify(result.output as JsonValue), status: "ok" };
  return { text: result.refusal.message, status: result.record.status };
}

/** The capabilities of the turn's runtime, for the description (at most 30 names). */
function capabilityList(environment: CapabilityToolEnvironment): string {
  const names = environment.pipeline.index().capabilities(environment.caller().runtimeMode);
  if (names.length === 0) return "none";
  return names.length > 30 ? `${names.slice(0, 30).join(", ")}, …` : names.join(", ");
}
