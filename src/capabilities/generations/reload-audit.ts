import type { AuditEvent, AuditSink } from "../../observe/events.js";
import type { CapabilityEventSink } from "../events.js";
import type { GenerationEvent } from "./reload-events.js";

/**
 * Where a reloader's events go in a running app: each one on the capability plane's event
 * emitter (which `skillgate serve` carries on `/api/events`, with the seed's snake_case names)
 * and on the audit log, one line per step, switch, failure and switch left to the owner. The
 * audit keeps codes and step names only, never a Lua error's message (it may quote the
 * script); the event stream, which only the owner reads, keeps the message too.
 */

/** What {@link generationEventForwarder} writes to. */
export interface GenerationEventTargets {
  readonly events?: CapabilityEventSink;
  readonly audit?: AuditSink;
  /** The time of audit lines (default now). */
  readonly now?: () => Date;
}

/** A reloader's `publish` that forwards to `targets`; never throws. */
export function generationEventForwarder(targets: GenerationEventTargets): (event: GenerationEvent) => void {
  const now = targets.now ?? (() => new Date());
  return (event) => {
    try {
      emitCapabilityEvent(event, targets.events);
    } catch {
      // A broken stream is the stream's problem.
    }
    try {
      const line = auditEventOf(event, now().toISOString());
      if (line !== undefined) targets.audit?.record(line);
    } catch {
      // The audit sink reports its own failures.
    }
  };
}

function emitCapabilityEvent(event: GenerationEvent, sink: CapabilityEventSink | undefined): void {
  if (sink === undefined) return;
  switch (event.topic) {
    case "/skill/reload/step":
      sink.emit("/skill/reload/step", {
        id: event.skill,
        generation: event.generation,
        step: event.step,
        ...(event.waitedMs === undefined ? {} : { waited_ms: event.waitedMs }),
      });
      return;
    case "/capability/reloaded":
    case "/skill/reloaded":
      sink.emit(event.topic, {
        id: event.skill,
        generation: event.generation,
        ...(event.previous === undefined ? {} : { previous_generation: event.previous }),
      });
      return;
    case "/skill/reload_failed":
      sink.emit("/skill/reload_failed", {
        id: event.skill,
        generation: event.generation,
        error_kind: event.code,
        message: event.detail,
        step: event.step,
      });
      return;
    case "/skill/generation/waiting":
      sink.emit("/skill/generation/waiting", {
        id: event.skill,
        generation: event.generation,
        widening: event.widening,
      });
      return;
  }
}

/** The audit line of an event; `/capability/reloaded` has none (`/skill/reloaded` says the same). */
function auditEventOf(event: GenerationEvent, time: string): AuditEvent | undefined {
  const base = {
    time,
    requestId: `reload:${event.skill}@${event.generation}`,
    scope: { kind: "job", id: "hot-reload" },
    tool: "hot-reload",
    tier: "read",
    skillId: event.skill,
    skillKind: "lua_skill",
    generation: event.generation,
  } as const;
  switch (event.topic) {
    case "/skill/reload/step":
      return { ...base, type: "capability-reload-step", reloadStep: event.step };
    case "/skill/reloaded":
      return { ...base, type: "/skill/reloaded", status: "ok" };
    case "/skill/reload_failed":
      return {
        ...base,
        type: "/skill/reload_failed",
        status: event.code === "rejected_by_owner" ? "declined" : "failed",
        reloadStep: event.step,
        errorKind: event.code,
      };
    case "/skill/generation/waiting":
      return { ...base, type: "capability-generation-waiting", widening: event.widening };
    case "/capability/reloaded":
      return undefined;
  }
}
