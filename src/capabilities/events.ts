import type { RegistrationReason, RegistrationStatus, RuntimeMode, SkillKind } from "./types.js";

/**
 * The capability plane's events (seed 004, "Observability"), one emitter for all of them:
 * discovery publishes `/skill/discovered` and `/skill/registration/decided`; the invocation
 * pipeline `/skill/invoked`, `/skill/completed`, `/skill/failed`; hot reload
 * `/skill/reloaded`, `/skill/reload_failed` and `/capability/reloaded`, with each step
 * (`/skill/reload/step`) and a switch left to the owner (`/skill/generation/waiting`). Whoever wires the
 * app forwards them to the audit log and the server's `/api/events` stream; a listener that
 * throws is ignored (an observer must never break what it observes).
 */

/** What `/skill/discovered` carries: one descriptor found. */
export interface DiscoveredEvent {
  readonly id: string;
  readonly kind: SkillKind | null;
  readonly source: string;
  readonly location: string;
  readonly manifest_digest: string | null;
}

/** What `/skill/registration/decided` carries: one decision. */
export interface DecidedEvent {
  readonly id: string;
  readonly status: RegistrationStatus;
  readonly reasons: readonly RegistrationReason[];
  readonly runtime: RuntimeMode;
  readonly registered_to: readonly RuntimeMode[];
  readonly detail: string;
}

/**
 * The fields every invocation records (seed 004's list, its names), for `/skill/invoked`,
 * `/skill/completed` and `/skill/failed`. Fields not known yet at an event are absent
 * (`output_bytes` before completion).
 */
export interface InvocationEvent {
  readonly request_id: string;
  readonly trace_id: string;
  readonly agent_id: string;
  readonly skill_id: string;
  readonly provider: string;
  readonly capability: string;
  readonly skill_kind: SkillKind;
  readonly runtime_gate: readonly RuntimeMode[];
  readonly generation: number;
  readonly manifest_digest: string;
  readonly input_bytes?: number;
  readonly output_bytes?: number;
  readonly latency_ms?: number;
  readonly status?: "ok" | "error" | "refused" | "timeout";
  readonly error_kind?: string;
}

/** What the reload events carry. */
export interface ReloadEvent {
  readonly id: string;
  readonly generation: number;
  readonly previous_generation?: number;
  readonly manifest_digest?: string;
  readonly error_kind?: string;
  readonly message?: string;
  /** For `/skill/reload_failed`: the step of the sequence that failed. */
  readonly step?: string;
}

/** What `/skill/reload/step` carries: one step of a reload, as it starts. */
export interface ReloadStepEvent {
  readonly id: string;
  readonly generation: number;
  readonly step: string;
  /** For `debounce`: how long the burst of file changes was waited out. */
  readonly waited_ms?: number;
}

/** What `/skill/generation/waiting` carries: a switch that waits for the owner, and why. */
export interface GenerationWaitingEvent {
  readonly id: string;
  readonly generation: number;
  readonly widening: readonly string[];
}

/** Each event name and its data. */
export interface CapabilityEventMap {
  readonly "/skill/discovered": DiscoveredEvent;
  readonly "/skill/registration/decided": DecidedEvent;
  readonly "/skill/invoked": InvocationEvent;
  readonly "/skill/completed": InvocationEvent;
  readonly "/skill/failed": InvocationEvent;
  readonly "/skill/reloaded": ReloadEvent;
  readonly "/skill/reload_failed": ReloadEvent;
  readonly "/capability/reloaded": ReloadEvent;
  readonly "/skill/reload/step": ReloadStepEvent;
  readonly "/skill/generation/waiting": GenerationWaitingEvent;
}

/** Every event name. */
export type CapabilityEventName = keyof CapabilityEventMap;

/** Every event name, in the seed's order. */
export const CAPABILITY_EVENT_NAMES: readonly CapabilityEventName[] = [
  "/skill/discovered",
  "/skill/registration/decided",
  "/skill/invoked",
  "/skill/completed",
  "/skill/failed",
  "/skill/reloaded",
  "/skill/reload_failed",
  "/capability/reloaded",
  "/skill/reload/step",
  "/skill/generation/waiting",
];

/** One event as listeners receive it. */
export type CapabilityEvent = {
  readonly [Name in CapabilityEventName]: {
    readonly name: Name;
    /** ISO 8601 time of the event. */
    readonly at: string;
    readonly data: CapabilityEventMap[Name];
  };
}[CapabilityEventName];

/** Where events go: what publishers depend on (an emitter, a test's recorder). */
export interface CapabilityEventSink {
  emit<Name extends CapabilityEventName>(name: Name, data: CapabilityEventMap[Name]): void;
}

/** The in-process emitter: publishers emit, listeners (audit, `/api/events`) subscribe. */
export class CapabilityEvents implements CapabilityEventSink {
  readonly #listeners = new Set<(event: CapabilityEvent) => void>();
  readonly #now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  emit<Name extends CapabilityEventName>(name: Name, data: CapabilityEventMap[Name]): void {
    if (this.#listeners.size === 0) return;
    const event = { name, at: this.#now().toISOString(), data } as CapabilityEvent;
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // An observer must never break what it observes.
      }
    }
  }

  /** Subscribes; returns the function that unsubscribes. */
  on(listener: (event: CapabilityEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** A sink that drops everything (a caller that observes nothing). */
export const NO_EVENTS: CapabilityEventSink = { emit: () => undefined };
