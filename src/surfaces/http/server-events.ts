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
  /** A capability event of the invocation pipeline (`event` is `/skill/invoked`, `/skill/completed` or `/skill/failed`). */
  | {
      readonly type: "capability-invocation";
      readonly event: string;
      readonly requestId: string;
      readonly capability: string;
      readonly provider?: string;
      readonly status: string;
      readonly errorKind?: string;
    };

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
