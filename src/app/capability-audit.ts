import type { CapabilityEvent, CapabilityEvents } from "../capabilities/events.js";
import type { AuditEvent, AuditSink } from "../observe/events.js";

/**
 * Puts the capability plane's discovery and registration events on the audit log (seed 004,
 * "Observability"; docs/audit.md, "Capability events"). Invocations and reloads are not
 * handled here: the pipeline audits each call itself, with its caller's scope, and a
 * reloader each of its steps (capabilities/generations/reload-audit.ts).
 *
 * A discovery or decision is written when it is new to this process or differs from the one
 * written last for the same id: a changed manifest, path, schema, priority, enabled flag or
 * limit gives a new decision and so a new line, an unchanged reload none. A bare SKILL.md
 * (a `skill:` descriptor that is display-only for want of schemas) is left out: a catalog of
 * ten thousand skills would write twenty thousand identical lines per process, and `skillgate
 * list` shows those decisions. Never throws: an observer must not break what it observes.
 */

/** The scope capability-plane lines are filed under: they belong to no chat and no call. */
export const CAPABILITY_PLANE_SCOPE = { kind: "job", id: "capability-plane" } as const;

/** Subscribes `audit` to `events`; returns the function that unsubscribes. */
export function auditCapabilityEvents(events: CapabilityEvents, audit: AuditSink): () => void {
  const written = new Map<string, string>();
  const bare = new Set<string>();
  return events.on((event) => {
    if (isBareSkillEvent(event, bare)) return;
    const line = auditLineOf(event);
    if (line === undefined) return;
    if (line.dedupeKey !== undefined) {
      const key = `${event.name}\u0000${line.event.skillId ?? ""}`;
      if (written.get(key) === line.dedupeKey) return;
      written.set(key, line.dedupeKey);
    }
    audit.record(line.event);
  });
}

/**
 * Whether `event` is about a bare SKILL.md: its discovery (a `skill:` workflow skill) or its
 * decision (display-only for capability_missing_schema alone). `bare` remembers the ids
 * discovered as bare, since a decision does not carry the kind.
 */
function isBareSkillEvent(event: CapabilityEvent, bare: Set<string>): boolean {
  if (event.name === "/skill/discovered") {
    const isBare = event.data.id.startsWith("skill:") && event.data.kind === "workflow_skill";
    if (isBare) bare.add(event.data.id);
    return isBare;
  }
  if (event.name === "/skill/registration/decided")
    return (
      bare.has(event.data.id) &&
      event.data.status === "display_only" &&
      event.data.reasons.every((reason) => reason === "capability_missing_schema")
    );
  return false;
}

interface AuditLine {
  readonly event: AuditEvent;
  /** Set for lines written only when changed: what must differ for a new line. */
  readonly dedupeKey?: string;
}

/** The audit line of one capability event, or undefined for the ones the pipeline and the reloaders audit. */
export function auditLineOf(event: CapabilityEvent): AuditLine | undefined {
  const base = {
    time: event.at,
    scope: CAPABILITY_PLANE_SCOPE,
    tool: "capability-plane",
    tier: "read",
  } as const;
  switch (event.name) {
    case "/skill/discovered": {
      const data = event.data;
      const fields = {
        skillId: data.id,
        ...(data.kind !== null ? { skillKind: data.kind } : {}),
        source: data.source,
        path: data.location,
        ...(data.manifest_digest !== null ? { manifestDigest: data.manifest_digest.slice(0, 16) } : {}),
      };
      return {
        event: { type: event.name, requestId: `discovered:${data.id}`, ...base, ...fields },
        dedupeKey: JSON.stringify(fields),
      };
    }
    case "/skill/registration/decided": {
      const data = event.data;
      const fields = {
        skillId: data.id,
        registration: data.status,
        reasons: data.reasons.join(","),
        runtimeGate: data.registered_to.join(","),
      };
      return {
        event: { type: event.name, requestId: `decided:${data.id}`, ...base, ...fields },
        dedupeKey: JSON.stringify({ ...fields, runtime: data.runtime, detail: data.detail }),
      };
    }
    default:
      return undefined;
  }
}
