import type { Counter, MeterProvider } from "@opentelemetry/api";
import { metrics } from "@opentelemetry/api";
import type { AuditEvent, AuditSink } from "../../observe/events.js";
import { METER_NAME } from "../../observe/metrics.js";
import type { Caller, InvocationRecord } from "./invocation.js";

/**
 * Step 7, audit and metrics: every invocation leaves `/skill/invoked` when it starts and one of
 * `/skill/completed` or `/skill/failed` with its whole {@link InvocationRecord} when it ends, on
 * the audit log and on the capability event stream (which `skillgate serve` carries on
 * `/api/events`), and counts once in `skillgate.capability.invocations` by capability, provider
 * and status. Neither the payload nor the output is ever recorded: sizes only.
 */

/** The capability events' names (seed 004's). */
export type InvocationEventType = "/skill/invoked" | "/skill/completed" | "/skill/failed";

/** One event of the capability stream. */
export interface InvocationEvent {
  readonly type: InvocationEventType;
  /** ISO time. */
  readonly time: string;
  readonly record: InvocationRecord;
}

/** Where capability events go besides the audit log (a server's event bus). */
export interface InvocationEventSink {
  publish(event: InvocationEvent): void;
}

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
  readonly #events: () => readonly InvocationEventSink[];
  readonly #now: () => number;

  constructor(options: {
    readonly audit?: AuditSink;
    readonly events?: () => readonly InvocationEventSink[];
    readonly now?: () => number;
  }) {
    this.#audit = options.audit;
    this.#events = options.events ?? (() => []);
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
    for (const sink of this.#events()) {
      try {
        sink.publish({ type, time, record });
      } catch {
        // A broken stream is the stream's problem.
      }
    }
  }
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
