import type { InvocationEvent, InvocationEventSink } from "./audit.js";

/** A subscriber to {@link InvocationEventBus}. */
export type InvocationEventListener = (event: InvocationEvent) => void;

/**
 * The in-process stream of capability events: the pipeline publishes each `/skill/…` event
 * here as it writes it to the audit log; `skillgate serve` forwards them to `/api/events`. A
 * listener that throws is skipped, never the invocation.
 */
export class InvocationEventBus implements InvocationEventSink {
  readonly #listeners = new Set<InvocationEventListener>();

  publish(event: InvocationEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener is its own problem.
      }
    }
  }

  /** Starts telling `listener`; returns what stops it. */
  subscribe(listener: InvocationEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
