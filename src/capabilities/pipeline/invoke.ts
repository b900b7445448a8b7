import { randomUUID } from "node:crypto";
import type { CapabilitiesConfig } from "../../config/capabilities-config.js";
import type { AuditSink, CallStatus } from "../../observe/events.js";
import { currentTraceId, traceToolCall } from "../../observe/telemetry.js";
import type { CapabilityEventSink } from "../events.js";
import type {
  CapabilityIndex,
  CapabilityPermissions,
  CapabilityProvider,
  InvocationContext,
} from "../types.js";
import { InvocationAudit } from "./audit.js";
import { checkCallerPermission } from "./caller-permission.js";
import { ConcurrencyGuard } from "./concurrency-guard.js";
import { checkInput } from "./input-schema.js";
import {
  type Caller,
  CapabilityError,
  type InvocationErrorCode,
  type InvocationRecord,
  type InvocationRequest,
  type InvocationResult,
  isRefusalCode,
  refuse,
  type StepResult,
} from "./invocation.js";
import { checkOutput } from "./output-schema.js";
import { guardPayload, type PayloadGuardOptions } from "./payload-guard.js";
import { thrownRefusal } from "./provider-failure.js";
import { routeProvider } from "./provider-router.js";

/**
 * The invocation pipeline (docs/capabilities.md, "The invocation pipeline"), in seed 004's
 * order: caller permission → router → payload guard and input schema → timeout and
 * concurrency guard → execution → output schema → audit and metrics → response. Each step is
 * its own unit; this file only strings them together, so no door can skip one.
 */

/** Options of {@link CapabilityPipeline}. */
export interface CapabilityPipelineOptions {
  /** The capability index, or what gives the current one (it is switched whole on a reload). */
  readonly index: CapabilityIndex | (() => CapabilityIndex);
  readonly audit?: AuditSink;
  /** The capability plane's event emitter (events.ts): what a server's `/api/events` carries. */
  readonly events?: CapabilityEventSink;
  readonly guard?: ConcurrencyGuard;
  /** Folders that hold skills: paths inside them are skill paths a payload may not carry. */
  readonly skillFolders?: () => readonly string[];
  /** The environment a payload may not quote (default `process.env`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  readonly payloadLimits?: Pick<PayloadGuardOptions, "maxBytes" | "maxDepth" | "maxKeys">;
  /** config.yaml's `capabilities:` section in force now: the router's explicit priorities. */
  readonly config?: () => CapabilitiesConfig;
  readonly now?: () => number;
}

/** The one way to a capability provider. */
export class CapabilityPipeline {
  readonly guard: ConcurrencyGuard;
  readonly #options: CapabilityPipelineOptions;
  readonly #audit: InvocationAudit;
  readonly #index: () => CapabilityIndex;

  constructor(options: CapabilityPipelineOptions) {
    this.#options = options;
    const index = options.index;
    this.#index = typeof index === "function" ? index : () => index;
    this.guard = options.guard ?? new ConcurrencyGuard();
    this.#audit = new InvocationAudit({
      ...(options.audit !== undefined ? { audit: options.audit } : {}),
      ...(options.events !== undefined ? { events: options.events } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
    });
  }

  /** config.yaml's `capabilities:` section in force now, when the pipeline was given it. */
  config(): CapabilitiesConfig | undefined {
    return this.#options.config?.();
  }

  /** The index in force now. */
  index(): CapabilityIndex {
    return this.#index();
  }

  /**
   * Runs one invocation through every step. Never throws: a refusal or failure is an
   * {@link InvocationResult} with a code and a `HOST:` sentence; `tool` names the door for
   * the audit (`invoke_capability`, a capability's own MCP tool, `skillgate invoke`).
   */
  invoke(request: InvocationRequest, caller: Caller, tool = "invoke_capability"): Promise<InvocationResult> {
    const requestId = randomUUID();
    const name = typeof request.capability === "string" ? request.capability : "";
    return traceToolCall(
      { name: name || "invoke_capability", callId: requestId, type: "extension" },
      () => this.#run(requestId, request, caller, tool),
      (result) => ({
        status: result.record.status,
        ...(result.ok ? {} : { errorType: result.refusal.code }),
        attributes: {
          ...(result.record.provider !== undefined
            ? { "skillgate.capability.provider": result.record.provider }
            : {}),
          ...(result.record.generation !== undefined
            ? { "skillgate.capability.generation": result.record.generation }
            : {}),
        },
      }),
    );
  }

  /** {@link invoke}, throwing a {@link CapabilityError} for a refusal: for library callers. */
  async invokeOrThrow(request: InvocationRequest, caller: Caller): Promise<InvocationResult & { ok: true }> {
    const result = await this.invoke(request, caller, "library");
    if (!result.ok) throw new CapabilityError(request.capability, result.refusal);
    return result;
  }

  async #run(
    requestId: string,
    request: InvocationRequest,
    caller: Caller,
    tool: string,
  ): Promise<InvocationResult> {
    const now = this.#options.now ?? Date.now;
    const started = now();
    const touched: Array<{ path: string; access: "read" | "write" }> = [];
    let record: InvocationRecord = {
      requestId,
      traceId: caller.traceId ?? currentTraceId(),
      agentId: caller.agentId,
      capability: typeof request.capability === "string" ? request.capability : "",
      inputBytes: 0,
      outputBytes: 0,
      latencyMs: 0,
      status: "ok",
      touched,
    };
    this.#audit.invoked(record, caller, tool);
    const end = (outcome: StepResult<{ output: unknown; bytes: number }>): InvocationResult => {
      record = { ...record, latencyMs: now() - started, touched: [...touched] };
      if (outcome.ok) {
        record = { ...record, outputBytes: outcome.value.bytes };
        this.#audit.finished(record, caller, tool);
        return { ok: true, output: outcome.value.output as never, record };
      }
      record = { ...record, status: statusOf(outcome.refusal.code), errorKind: outcome.refusal.code };
      this.#audit.finished(record, caller, tool);
      return { ok: false, refusal: outcome.refusal, record };
    };

    const shape = requestProblem(request);
    if (shape !== undefined) return end(shape);
    const permitted = checkCallerPermission(caller, request.capability, this.#index());
    if (!permitted.ok) return end(permitted);
    const routed = routeProvider(permitted.value, request.provider, this.#options.config?.());
    if (!routed.ok) return end(routed);
    const provider = routed.value;
    record = { ...record, ...providerFields(provider) };
    const guarded = guardPayload(request.payload, {
      ...this.#options.payloadLimits,
      skillFolders: this.#options.skillFolders?.() ?? [],
      allowedRoots: allowedRoots(provider.permissions, caller.workspace),
      ...(this.#options.environment !== undefined ? { environment: this.#options.environment } : {}),
      ...(this.#options.now !== undefined ? { now: this.#options.now } : {}),
    });
    if (!guarded.ok) return end(guarded);
    record = { ...record, inputBytes: guarded.value.bytes };
    const input = checkInput(provider, guarded.value.payload);
    if (!input.ok) return end(input);
    const limits = provider.descriptor.limits;
    const timeoutMs = Math.max(1, Math.min(request.timeoutMs ?? limits.timeoutMs, limits.timeoutMs));
    const ran = await this.guard.run(
      {
        capability: request.capability,
        provider: provider.descriptor.id,
        providerLimit: limits.maxConcurrency,
        timeoutMs,
        ...(caller.signal !== undefined ? { signal: caller.signal } : {}),
      },
      (signal) => {
        const context: InvocationContext = {
          requestId,
          traceId: record.traceId,
          agentId: caller.agentId,
          runtimeMode: caller.runtimeMode,
          signal,
          permissions: provider.permissions,
          touched: (path, access) => void touched.push({ path, access }),
          scope: caller.scope,
          interactive: caller.interactive,
          provider: provider.descriptor.id,
          ...(caller.workspace !== undefined ? { workspace: caller.workspace } : {}),
          ...(caller.sample !== undefined ? { sample: caller.sample } : {}),
        };
        return provider.invoke(guarded.value.payload, context);
      },
    );
    if (ran.ok === "thrown") return end({ ok: false, refusal: thrownRefusal(provider, ran.error) });
    if (!ran.ok) return end(ran);
    return end(checkOutput(provider, ran.value));
  }
}

/** The call's own shape: a capability name, an optional provider id, an optional positive timeout. */
function requestProblem(request: InvocationRequest): StepResult<never> | undefined {
  if (
    typeof request.capability !== "string" ||
    request.capability.length === 0 ||
    request.capability.length > 200
  )
    return refuse(
      "input_invalid",
      'HOST: capability must be a capability name, such as "workflow.code_review".',
    );
  if (
    request.provider !== undefined &&
    (typeof request.provider !== "string" || request.provider.length === 0)
  )
    return refuse("input_invalid", "HOST: provider must be a provider id, or left out.");
  const timeout = request.timeoutMs;
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout <= 0))
    return refuse("input_invalid", "HOST: timeout_ms must be a positive whole number of milliseconds.");
  return undefined;
}

/** The record's fields that come from the chosen provider. */
function providerFields(provider: CapabilityProvider): Partial<InvocationRecord> {
  const descriptor = provider.descriptor;
  return {
    provider: descriptor.id,
    skillId: descriptor.name ?? descriptor.id,
    skillKind: descriptor.kind,
    runtimeGate: descriptor.runtimeGate.allowedModes.join(","),
    generation: provider.generation,
    manifestDigest: descriptor.manifestDigest,
  };
}

/** The absolute roots a provider may touch in this call: its fs roots, `workspace` being the caller's. */
export function allowedRoots(permissions: CapabilityPermissions, workspace: string | undefined): string[] {
  const roots = new Set<string>();
  // The workspace first: relative paths with `..` are judged against it.
  if (workspace !== undefined && [...permissions.fsRead, ...permissions.fsWrite].includes("workspace"))
    roots.add(workspace);
  for (const root of [...permissions.fsRead, ...permissions.fsWrite])
    if (root !== "workspace" && root.startsWith("/")) roots.add(root);
  return [...roots];
}

/** How a code counts in the audit's status. */
function statusOf(code: InvocationErrorCode): CallStatus {
  if (code === "capability_timeout") return "timed_out";
  if (code === "capability_interrupted") return "interrupted";
  return isRefusalCode(code) ? "refused" : "failed";
}
