import type { Counter, MeterProvider } from "@opentelemetry/api";
import { metrics } from "@opentelemetry/api";
import type { AuditEvent, AuditSink } from "../../observe/events.js";
import { METER_NAME } from "../../observe/metrics.js";
import type { CapabilityEventSink, InvocationEvent as InvocationEventData } from "../events.js";
import type { RuntimeMode } from "../types.js";
import type { Caller, InvocationRecord } from "./invocation.js";

/**
 * Step 7, audit and metrics: every invocation leaves `/skill/invoked` when it starts and one of
 * `/skill/completed` or `/skill/failed` with its whole {@link InvocationRecord} when it ends, on
 * the audit log and on the capability plane's event emitter (events.ts, which `skillgate serve`
 * carries on `/api/events`, with the seed's snake_case field names), and counts once in `skillgate.capability.invocations` by capability, provider
 * and status. Neither the payload nor the output is ever recorded: sizes only.
 */

/** The capability events' names (seed 004's). */
export type InvocationEventType = "/skill/invoked" | "/skill/completed" | "/skill/failed";

/** The counter of invocations. */
export const INVOCATIONS_COUNTER = "skillgate.capability.invocations";

const counters = new WeakMap<MeterProvider, Counter>();

function invocationsCounter(): Counter {
  const provider = metrics.getMeterProvider();
  let counter = counters.get(provider);
  if (counter === undefined) {
    counter = provider.getMeter(METER_NAME).createCounter(INVOCATIONS_COUNTER, {
      description: "Capability invocations through the pipeline, by capability, provider and status",
      unit: "{invocation}",
    });
    counters.set(provider, counter);
  }
  return counter;
}

/** Records invocations on the audit log, the event stream and the metrics. Never throws. */
export class InvocationAudit {
  readonly #audit: AuditSink | undefined;
  readonly #events: CapabilityEventSink | undefined;
  readonly #now: () => number;

  constructor(options: {
    readonly audit?: AuditSink;
    readonly events?: CapabilityEventSink;
    readonly now?: () => number;
  }) {
    this.#audit = options.audit;
    this.#events = options.events;
    this.#now = options.now ?? Date.now;
  }

  /** The call started. */
  invoked(record: InvocationRecord, caller: Caller, tool: string): void {
    this.#emit("/skill/invoked", record, caller, tool);
  }

  /** The call ended: each touched path, then completed when `ok`, failed otherwise. */
  finished(record: InvocationRecord, caller: Caller, tool: string): void {
    const time = new Date(this.#now()).toISOString();
    for (const touched of record.touched) {
      try {
        this.#audit?.record({
          type: "capability-path-touched",
          time,
          requestId: record.requestId,
          scope: caller.scope,
          tool,
          tier: touched.access === "write" ? "change" : "read",
          capability: record.capability,
          ...(record.provider !== undefined ? { provider: record.provider } : {}),
          path: touched.path,
          access: touched.access,
        });
      } catch {
        // The audit sink reports its own failures.
      }
    }
    this.#emit(record.status === "ok" ? "/skill/completed" : "/skill/failed", record, caller, tool);
    try {
      invocationsCounter().add(1, {
        capability: record.capability,
        provider: record.provider ?? "",
        status: record.status,
      });
    } catch {
      // A broken metrics SDK must not fail the call it counts.
    }
  }

  #emit(type: InvocationEventType, record: InvocationRecord, caller: Caller, tool: string): void {
    const time = new Date(this.#now()).toISOString();
    try {
      this.#audit?.record(auditEventOf(type, time, record, caller, tool));
    } catch {
      // The audit sink reports its own failures.
    }
    try {
      this.#events?.emit(type, eventDataOf(type, record));
    } catch {
      // A broken stream is the stream's problem.
    }
  }
}

/**
 * The event stream's data of one invocation event, in the seed's names (events.ts). Before
 * the router chose a provider, its fields are empty (`""`, `[]`, `0`); sizes, latency and
 * status come with the end event. The stream's status is coarser than the record's:
 * `timed_out` is `timeout`, `failed` and `interrupted` are `error`.
 */
export function eventDataOf(type: InvocationEventType, record: InvocationRecord): InvocationEventData {
  const finished = type !== "/skill/invoked";
  return {
    request_id: record.requestId,
    trace_id: record.traceId,
    agent_id: record.agentId,
    skill_id: record.skillId ?? "",
    provider: record.provider ?? "",
    capability: record.capability,
    skill_kind: record.skillKind ?? "workflow_skill",
    runtime_gate: (record.runtimeGate ?? "").split(",").filter((mode) => mode !== "") as RuntimeMode[],
    generation: record.generation ?? 0,
    manifest_digest: record.manifestDigest ?? "",
    ...(finished
      ? {
          input_bytes: record.inputBytes,
          output_bytes: record.outputBytes,
          latency_ms: record.latencyMs,
          status: streamStatus(record.status),
          ...(record.errorKind !== undefined ? { error_kind: record.errorKind } : {}),
        }
      : {}),
  };
}

function streamStatus(status: InvocationRecord["status"]): NonNullable<InvocationEventData["status"]> {
  if (status === "ok" || status === "refused") return status;
  return status === "timed_out" ? "timeout" : "error";
}

/** The audit line of one capability event: the record's fields, never the payload or output. */
export function auditEventOf(
  type: InvocationEventType,
  time: string,
  record: InvocationRecord,
  caller: Caller,
  tool: string,
): AuditEvent {
  const finished = type !== "/skill/invoked";
  return {
    type,
    time,
    requestId: record.requestId,
    scope: caller.scope,
    tool,
    tier: "read",
    traceId: record.traceId,
    agentId: record.agentId,
    capability: record.capability,
    ...(record.provider !== undefined ? { provider: record.provider } : {}),
    ...(record.skillId !== undefined ? { skillId: record.skillId } : {}),
    ...(record.skillKind !== undefined ? { skillKind: record.skillKind } : {}),
    ...(record.runtimeGate !== undefined ? { runtimeGate: record.runtimeGate } : {}),
    ...(record.generation !== undefined ? { generation: record.generation } : {}),
    ...(record.manifestDigest !== undefined ? { manifestDigest: record.manifestDigest.slice(0, 16) } : {}),
    ...(finished
      ? {
          inputBytes: record.inputBytes,
          outputBytes: record.outputBytes,
          latencyMs: record.latencyMs,
          status: record.status,
          ...(record.errorKind !== undefined ? { errorKind: record.errorKind } : {}),
        }
      : {}),
  };
}
