import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ServerEvents } from "./server-events.js";

/** The path of the live-update stream. */
export const EVENTS_PATH = "/api/events";

/** Default time between heartbeats: often enough that proxies keep an idle stream open. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** `/api/events` and what ends its streams when the server stops. */
export interface EventStreams {
  readonly routes: Hono;
  /** Streams open now. */
  readonly size: number;
  /** Ends every open stream (the server is stopping). */
  closeAll(): Promise<void>;
}

/**
 * `GET /api/events`: server-sent events from the {@link ServerEvents} bus. Each event is
 * `event: TYPE` with the event as JSON `data`; the first is `ready` (the stream is subscribed,
 * nothing published after it is missed), and a `: heartbeat` comment follows every
 * `heartbeatMs` of quiet. Writes are chained, so events arrive in the order published.
 * docs/server.md, "Live updates".
 */
export function eventStreams(events: ServerEvents, heartbeatMs: number = DEFAULT_HEARTBEAT_MS): EventStreams {
  const open = new Set<() => Promise<void>>();
  const routes = new Hono();
  routes.get(EVENTS_PATH, (c) =>
    streamSSE(c, async (stream) => {
      let chain: Promise<void> = Promise.resolve();
      const send = (text: string): void => {
        chain = chain
          .then(async () => {
            await stream.write(text);
          })
          .catch(() => undefined);
      };
      await new Promise<void>((resolve) => {
        const unsubscribe = events.subscribe((event) =>
          send(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
        );
        const heartbeat = setInterval(() => send(": heartbeat\n\n"), heartbeatMs);
        const end = async (): Promise<void> => {
          if (!open.delete(end)) return;
          clearInterval(heartbeat);
          unsubscribe();
          await chain;
          resolve();
        };
        open.add(end);
        stream.onAbort(() => void end());
        send("event: ready\ndata: {}\n\n");
      });
    }),
  );
  return {
    routes,
    get size() {
      return open.size;
    },
    closeAll: async () => {
      await Promise.all([...open].map((end) => end()));
    },
  };
}
