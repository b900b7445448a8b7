import {
  INVOCATION_FAILURE_CODES,
  INVOCATION_REFUSAL_CODES,
  type InvocationFailureCode,
  type InvocationRefusalCode,
  LUA_SKILL_ERROR_CODES,
  SkillgateError,
} from "../../core/errors.js";
import type { JsonValue } from "../../core/safe-json.js";
import type { CallStatus } from "../../observe/events.js";
import type { CapabilityProvider, InvocationContext, RuntimeMode, Sampler, SkillKind } from "../types.js";

/**
 * The invocation pipeline's own vocabulary: what a caller asks, who the caller is, how a
 * call is refused and the one record every call leaves (docs/capabilities.md, "The
 * invocation pipeline"). Every door (the turn's tool, MCP, the AI SDK, the CLI, Lua's
 * `ctx.tools.invoke_agent`) builds an {@link InvocationRequest} and a {@link Caller} and
 * hands them to `invokeCapability`; none reaches a provider another way.
 */

/** What a caller asks for: `invoke_capability({capability, provider?, payload, timeout_ms?})`. */
export interface InvocationRequest {
  /** A stable capability name, such as `workflow.code_review`. */
  readonly capability: string;
  /** Pins one provider by id; without it the router chooses. */
  readonly provider?: string;
  /** The JSON payload, checked by the payload guard and the input schema before any provider sees it. */
  readonly payload: unknown;
  /** Shortens the provider's own timeout; a caller can never lengthen it. */
  readonly timeoutMs?: number;
}

/**
 * Who calls. `lua_skill` callers may invoke only their manifest's adapter capabilities; every
 * caller only capabilities registered for its runtime mode; a `plan` caller only read-only
 * providers (caller-permission.ts).
 */
export type CallerKind = "turn" | "mcp" | "cli" | "lua_skill" | "library";

/** The caller of one invocation, as the door that received it knows it. */
export interface Caller {
  readonly kind: CallerKind;
  /** Who is acting: a chat or job id, a Lua skill's provider id, `cli`. */
  readonly agentId: string;
  readonly runtimeMode: RuntimeMode;
  /** For `lua_skill`: the capabilities its manifest lists under `permissions.adapters.capabilities`. */
  readonly allowedCapabilities?: readonly string[];
  /** A person is there to answer (a chat, the CLI on a terminal); a gate may require one. */
  readonly interactive: boolean;
  /** The chat or job the audit trail files the call under. */
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  /** The trace the call joins (an outer call's); a new one otherwise. */
  readonly traceId?: string;
  /** The caller's own stop (the turn's signal, a cancelled MCP request). */
  readonly signal?: AbortSignal;
  /** The turn's workspace (absolute): what `workspace` in a provider's fs roots means for this call. */
  readonly workspace?: string;
  /** MCP sampling with the calling client, when it supports it (entries/sampling-entry.ts). */
  readonly sample?: Sampler;
}

/**
 * Codes a provider's own error keeps at the caller (a Lua skill's: an endless loop is
 * `lua_cpu_limit`, a memory bomb `lua_memory_limit`), rather than `capability_failed`.
 */
export const PROVIDER_ERROR_CODES = LUA_SKILL_ERROR_CODES;

/** A code of {@link PROVIDER_ERROR_CODES}. */
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

/**
 * Every code the pipeline refuses or fails a call with, from core's lists (src/core/errors.ts):
 * its refusals before any provider runs, the failures of a call that ran, and the provider
 * codes it keeps. Nothing else reaches a caller as a refusal's code.
 */
export const INVOCATION_ERROR_CODES: readonly InvocationErrorCode[] = [
  ...INVOCATION_REFUSAL_CODES,
  ...INVOCATION_FAILURE_CODES,
  ...PROVIDER_ERROR_CODES,
];

/** A code of {@link INVOCATION_ERROR_CODES}. */
export type InvocationErrorCode = InvocationRefusalCode | InvocationFailureCode | ProviderErrorCode;

const INVOCATION_CODE_SET: ReadonlySet<string> = new Set(INVOCATION_ERROR_CODES);
const REFUSAL_CODE_SET: ReadonlySet<string> = new Set(INVOCATION_REFUSAL_CODES);
const PROVIDER_CODE_SET: ReadonlySet<string> = new Set(PROVIDER_ERROR_CODES);

/** True for a code the pipeline answers callers with. */
export function isInvocationErrorCode(code: string): code is InvocationErrorCode {
  return INVOCATION_CODE_SET.has(code);
}

/** True for a refusal before any provider ran (the audit's `refused`). */
export function isRefusalCode(code: string): code is InvocationRefusalCode {
  return REFUSAL_CODE_SET.has(code);
}

/** True for a provider's own code the pipeline keeps. */
export function isProviderErrorCode(code: string): code is ProviderErrorCode {
  return PROVIDER_CODE_SET.has(code);
}

/**
 * A refusal or failure: a stable code, the `HOST:` sentence a model is shown (never the
 * payload's content), and for payload refusals the JSON pointer where the value hid.
 */
export interface InvocationRefusal {
  readonly code: InvocationErrorCode;
  readonly message: string;
  readonly pointer?: string;
}

/** One step's answer: go on with a value, or stop the call with a refusal. */
export type StepResult<Value> =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly refusal: InvocationRefusal };

/** A refusal as a step's answer. */
export function refuse<Value>(
  code: InvocationErrorCode,
  message: string,
  pointer?: string,
): StepResult<Value> {
  return { ok: false, refusal: { code, message, ...(pointer !== undefined ? { pointer } : {}) } };
}

/**
 * The one record of an invocation (seed 004's fields, in the audit's camelCase:
 * `request_id` is `requestId`, and so on; docs/capabilities.md, "Observability"). Fields the
 * call never reached (a refused call has no provider) are absent.
 */
export interface InvocationRecord {
  readonly requestId: string;
  readonly traceId: string;
  readonly agentId: string;
  readonly capability: string;
  readonly skillId?: string;
  readonly provider?: string;
  readonly skillKind?: SkillKind;
  /** The provider's allowed modes, comma-separated (`normal,plan`). */
  readonly runtimeGate?: string;
  readonly generation?: number;
  readonly manifestDigest?: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly latencyMs: number;
  readonly status: CallStatus;
  readonly errorKind?: InvocationErrorCode;
  /** Workspace paths the call read or wrote (seed 004's "Audit" row), in order. */
  readonly touched: readonly { readonly path: string; readonly access: "read" | "write" }[];
}

/** How one invocation ended: the output that passed its schema, or the refusal; the record either way. */
export type InvocationResult =
  | { readonly ok: true; readonly output: JsonValue; readonly record: InvocationRecord }
  | { readonly ok: false; readonly refusal: InvocationRefusal; readonly record: InvocationRecord };

/** An invocation's refusal thrown to a library caller who asked for throws (`invokeOrThrow`). */
export class CapabilityError extends SkillgateError<{ capability: string; pointer?: string }> {
  constructor(capability: string, refusal: InvocationRefusal) {
    super(refusal.code, refusal.message, {
      capability,
      ...(refusal.pointer !== undefined ? { pointer: refusal.pointer } : {}),
    });
  }
}

/**
 * The caller of a nested call a provider makes while serving `context` (a Lua skill's
 * `ctx.tools.invoke_agent`): the provider itself as a `lua_skill` caller, limited to its
 * effective adapter capabilities, in the same runtime mode, trace, scope and workspace, its
 * stop being the outer call's signal. The nested call takes the whole pipeline again.
 */
export function nestedCaller(
  context: InvocationContext,
  provider?: Pick<CapabilityProvider, "descriptor" | "permissions">,
): Caller {
  return {
    kind: "lua_skill",
    // Without the provider, the context says who serves the call and what it may call on.
    agentId: provider?.descriptor.id ?? context.provider ?? context.agentId,
    runtimeMode: context.runtimeMode,
    allowedCapabilities: (provider?.permissions ?? context.permissions).adapterCapabilities,
    interactive: context.interactive ?? false,
    scope: context.scope ?? { kind: "job", id: context.agentId },
    traceId: context.traceId,
    signal: context.signal,
    ...(context.workspace !== undefined ? { workspace: context.workspace } : {}),
    ...(context.sample !== undefined ? { sample: context.sample } : {}),
  };
}
