import { describe, expect, it } from "vitest";
import { startTestServer } from "../../helpers/http-server.js";

/** `/api/events`: the bus as server-sent events, a heartbeat while quiet, and the end on stop. */

/** Reads an event stream's text until `until` holds for what was read; returns the text. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (text: string) => boolean,
  read: { text: string },
): Promise<string> {
  const decoder = new TextDecoder();
  while (!until(read.text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended; it said: ${read.text}`);
    read.text += decoder.decode(value, { stream: true });
  }
  return read.text;
}

describe("/api/events", () => {
  it("streams published events in order after `ready`, with heartbeats, and ends when the server stops", async () => {
    const served = await startTestServer({ server: { heartbeatMs: 50 } });
    const response = await served.fetch("/api/events");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const read = { text: "" };
    await readUntil(reader, (text) => text.includes("event: ready\n"), read);
    expect(served.server.context.events.size).toBe(1);
    served.server.context.events.publish({ type: "skill-changed", name: "alpha", revision: 3 });
    served.server.context.events.publish({ type: "skill-deleted", name: "beta" });
    await readUntil(reader, (text) => text.includes("event: skill-deleted"), read);
    expect(read.text).toContain(
      'event: skill-changed\ndata: {"type":"skill-changed","name":"alpha","revision":3}\n\n',
    );
    expect(read.text.indexOf("skill-changed")).toBeLessThan(read.text.indexOf("skill-deleted"));
    await readUntil(reader, (text) => text.includes(": heartbeat\n\n"), read);
    await served.server.close();
    // The stream ends cleanly: the reader sees its end, and no listener is left on the bus.
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(served.server.context.events.size).toBe(0);
  });

  it("needs the owner: no credential is 401", async () => {
    const served = await startTestServer();
    const response = await fetch(`${served.origin}/api/events`);
    expect(response.status).toBe(401);
  });

  it("drops the listener when the client goes away", async () => {
    const served = await startTestServer();
    const controller = new AbortController();
    const response = await served.fetch("/api/events", { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, (text) => text.includes("event: ready"), { text: "" });
    controller.abort();
    for (let tries = 0; tries < 200 && served.server.context.events.size > 0; tries += 1) {
      served.server.context.events.publish({ type: "review-changed", needsReview: tries });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(served.server.context.events.size).toBe(0);
  });
});
