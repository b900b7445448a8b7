/**
 * Live updates of `skillgate serve`: what changed, told to every open web UI through
 * `/api/events` (server-sent events). Best effort: a listener that throws is dropped from
 * the call, never from the write that caused the event. Names are `noun-action`.
 */

/** What a server event says changed. Payloads stay small: a UI refetches what it shows. */
export type ServerEvent =
  | { readonly type: "skill-changed"; readonly name: string; readonly revision?: number }
  | { readonly type: "skill-deleted"; readonly name: string }
  | { readonly type: "review-changed"; readonly needsReview: number }
  | { readonly type: "draft-created"; readonly name: string }
  | { readonly type: "plan-applied"; readonly id: string; readonly name: string }
  | { readonly type: "approval-requested"; readonly id: string }
  | { readonly type: "approval-settled"; readonly id: string; readonly answer: string }
  | { readonly type: "call-finished"; readonly chat: string; readonly tool: string; readonly status: string }
  /** A node was added, removed, or its live state moved (online, offline, a heartbeat, a run). */
  | { readonly type: "node-changed"; readonly name: string }
  /** A Lua skill's generation changed state (built, waiting for approval, active, draining, closed, rejected). */
  | { readonly type: "generation-changed"; readonly name: string; readonly id: string }
  /**
   * An event of the capability plane (docs/capabilities.md, "Observability"): `name` is
   * `/skill/discovered`, `/skill/registration/decided`, `/skill/invoked`, `/skill/completed`,
   * `/skill/failed`, `/skill/reloaded`, `/skill/reload_failed` or `/capability/reloaded`, with
   * its small data (ids, sizes, statuses; never a payload or an output).
   */
  | { readonly type: "capability-event"; readonly name: string; readonly at: string; readonly data: object };

/** The event types, for a client that subscribes to some. */
export type ServerEventType = ServerEvent["type"];

/** A subscriber to {@link ServerEvents}. */
export type ServerEventListener = (event: ServerEvent) => void;

/** The in-process bus every route publishes to and `/api/events` streams from. */
export class ServerEvents {
  readonly #listeners = new Set<ServerEventListener>();

  /** Tells every listener; a listener that throws does not stop the others. */
  publish(event: ServerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken stream is the stream's problem; the write that published already happened.
      }
    }
  }

  /** Starts telling `listener`; returns what stops it. */
  subscribe(listener: ServerEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Listeners now (open event streams). */
  get size(): number {
    return this.#listeners.size;
  }
}
