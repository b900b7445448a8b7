import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import {
  AgentChannelClient,
  backoffDelay,
  channelUrl,
  DEFAULT_BACKOFF,
  parseMessage,
} from "../../../src/nodes/agent/agent-channel-client.js";
import { HeartbeatLoop } from "../../../src/nodes/agent/heartbeat.js";
import type { Heartbeat, HeartbeatResponse } from "../../../src/nodes/protocol.js";
import { AGENT_ROUTES } from "../../../src/nodes/protocol.js";
import { silentLogger } from "../../../src/observe/logger.js";
import { eventually } from "../../helpers/eventually.js";

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe("the channel's backoff", () => {
  it("doubles from the first delay to the cap, with half of each delay random", () => {
    const low = (attempt: number) => backoffDelay(attempt, DEFAULT_BACKOFF, () => 0);
    const high = (attempt: number) => backoffDelay(attempt, DEFAULT_BACKOFF, () => 0.999999);
    expect([0, 1, 2, 3].map(low)).toEqual([250, 500, 1000, 2000]);
    expect([0, 1, 2, 3].map(high)).toEqual([500, 1000, 2000, 4000]);
    expect(low(50)).toBe(15_000);
    expect(high(50)).toBe(30_000);
  });

  it("turns the controller's URL into the channel's WebSocket URL", () => {
    expect(channelUrl("http://127.0.0.1:3917")).toBe(`ws://127.0.0.1:3917${AGENT_ROUTES.channel}`);
    expect(channelUrl("https://lab.example/base/")).toBe(`wss://lab.example${AGENT_ROUTES.channel}`);
  });

  const hostile: readonly [string, string][] = [
    ["text that is not JSON", "{"],
    ["an array", "[]"],
    ["no type", '{"requestId":"x"}'],
    ["an unknown type", '{"type":"rm-rf"}'],
    ["a type that is not text", '{"type":1}'],
  ];
  for (const [what, text] of hostile)
    it(`drops a controller message that is ${what}`, () => {
      expect(parseMessage(text)).toBeUndefined();
    });
});

describe("AgentChannelClient against a real WebSocket server", () => {
  it("says hello with the credential, is open after the welcome, and reconnects after the server drops it", async () => {
    const http = createServer();
    const sockets = new WebSocketServer({ server: http, path: AGENT_ROUTES.channel });
    const seen: Array<{ authorization: string | undefined; hello: unknown }> = [];
    sockets.on("connection", (socket, request) => {
      socket.once("message", (data) => {
        seen.push({ authorization: request.headers.authorization, hello: JSON.parse(String(data)) });
        socket.send(JSON.stringify({ type: "welcome", node: "lab01", protocol: 1 }));
        if (seen.length === 1) setTimeout(() => socket.terminate(), 20);
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    closers.push(
      () => new Promise<void>((resolve) => http.close(() => resolve())),
      () => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
      },
    );
    const states: boolean[] = [];
    const client = new AgentChannelClient({
      controller: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      credential: "sgn_test",
      logger: silentLogger,
      backoff: { initialMs: 10, maxMs: 50 },
      onMessage: () => {},
      onState: (connected) => states.push(connected),
    });
    closers.push(() => client.close());
    client.start();
    await eventually("two connections", () => seen.length === 2 && client.connected);
    expect(seen[0]).toEqual({ authorization: "Bearer sgn_test", hello: { type: "hello", protocol: 1 } });
    expect(states).toEqual([true, false, true]);
    expect(client.send({ type: "run-started", requestId: "r1" })).toBe(true);
    await client.close();
    expect(client.send({ type: "run-started", requestId: "r2" })).toBe(false);
  });
});

describe("HeartbeatLoop", () => {
  it("beats at start, again on a change (never two at once), and not for a change that changed nothing", async () => {
    let skills: Record<string, string> = {};
    const sent: Heartbeat[] = [];
    let release: (() => void) | undefined;
    const loop = new HeartbeatLoop({
      logger: silentLogger,
      intervalMs: 60_000,
      current: () => ({
        features: ["skills"],
        sandbox: { available: false },
        os: "linux",
        arch: "x64",
        skills,
        runs: [],
        agentVersion: "0",
      }),
      send: (beat) => {
        sent.push(beat);
        return new Promise<HeartbeatResponse>((resolve) => {
          release = () => resolve({ manifestSequence: 1 });
        });
      },
    });
    closers.push(() => loop.stop());
    loop.start();
    expect(sent).toHaveLength(1);
    skills = { a: "1".repeat(64) };
    loop.changed();
    loop.changed();
    expect(sent).toHaveLength(1);
    release?.();
    await eventually("the change beat", () => sent.length === 2);
    release?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
    loop.changed();
    expect(sent).toHaveLength(2);
    expect(sent[1]?.skills).toEqual({ a: "1".repeat(64) });
  });
});
