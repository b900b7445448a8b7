import type { ServerEvent } from "./types.js";

/** A listener of live updates. */
export type ServerEventListener = (event: ServerEvent) => void;

/**
 * Opens `/api/events` (server-sent events) and tells `listener` each update; returns what
 * closes it. EventSource reconnects by itself when the stream drops.
 */
export function subscribeToEvents(listener: ServerEventListener): () => void {
  if (typeof EventSource === "undefined") return () => {};
  const source = new EventSource("/api/events", { withCredentials: true });
  const handle = (message: MessageEvent<string>): void => {
    try {
      const parsed: unknown = JSON.parse(message.data);
      if (typeof parsed === "object" && parsed !== null && typeof (parsed as ServerEvent).type === "string") {
        listener(parsed as ServerEvent);
      }
    } catch {
      // A line that is not JSON (a comment, a keep-alive) is not an update.
    }
  };
  source.addEventListener("message", handle);
  for (const type of [
    "skill-changed",
    "skill-deleted",
    "review-changed",
    "draft-created",
    "plan-applied",
    "approval-requested",
    "approval-settled",
    "call-finished",
    "node-changed",
    "generation-changed",
  ]) {
    source.addEventListener(type, handle as EventListener);
  }
  return () => source.close();
}
