import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/core/clock.js";
import {
  CHANNEL_CLOSE,
  type NodeChannel,
  NodeHub,
  OFFLINE_AFTER_MS,
} from "../../../src/nodes/controller/node-hub.js";
import { NodeRegistry } from "../../../src/nodes/controller/node-registry.js";
import {
  type ControllerMessage,
  HEARTBEAT_INTERVAL_MS,
  type Heartbeat,
  MISSED_BEATS_OFFLINE,
  type NodeRunMessage,
} from "../../../src/nodes/protocol.js";

const HASH = "a".repeat(64);

class RecordingChannel implements NodeChannel {
  readonly sent: ControllerMessage[] = [];
  closed: { code: number; reason: string } | undefined;
  send(message: ControllerMessage): boolean {
    if (this.closed !== undefined) return false;
    this.sent.push(message);
    return true;
  }
  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }
}

function beat(skills: Record<string, string> = {}): Heartbeat {
  return {
    features: ["skills"],
    sandbox: { available: false, reason: "test" },
    os: "linux",
    arch: "x64",
    skills,
    runs: [],
    agentVersion: "test",
  };
}

function runMessage(requestId: string): NodeRunMessage {
  return {
    type: "run",
    requestId,
    skill: "demo",
    hash: HASH,
    script: "scripts/run.sh",
    arguments: {},
    timeoutMs: 1000,
    maxOutputBytes: 1024,
  };
}

async function setup() {
  const data = mkdtempSync(join(tmpdir(), "skillgate-hub-"));
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  const registry = new NodeRegistry({ dataFolder: data, clock });
  await registry.add("lab01");
  const changes: string[] = [];
  const hub = new NodeHub({ registry, clock, tickMs: false, onChange: (name) => changes.push(name) });
  return { data, clock, registry, hub, changes };
}

describe("the node hub", () => {
  it("welcomes a channel, shows the heartbeat's state, and marks the node offline after three missed beats", async () => {
    const { clock, hub } = await setup();
    const channel = new RecordingChannel();
    hub.attach("lab01", channel);
    expect(channel.sent).toEqual([{ type: "welcome", node: "lab01", protocol: 1 }]);
    hub.heartbeat("lab01", beat({ demo: HASH }));
    expect(hub.state("lab01")).toMatchObject({
      online: true,
      connected: true,
      features: ["skills"],
      os: "linux",
      skills: { demo: HASH },
      runsInFlight: 0,
      lastHeartbeatAt: "2026-01-01T00:00:00.000Z",
    });
    expect(OFFLINE_AFTER_MS).toBe(HEARTBEAT_INTERVAL_MS * MISSED_BEATS_OFFLINE);
    // Two missed beats: still online.
    clock.advance(HEARTBEAT_INTERVAL_MS * 2);
    hub.tick();
    expect(hub.isOnline("lab01")).toBe(true);
    // A beat resets the count.
    hub.heartbeat("lab01", beat());
    clock.advance(OFFLINE_AFTER_MS - 1);
    hub.tick();
    expect(hub.isOnline("lab01")).toBe(true);
    clock.advance(1);
    hub.tick();
    expect(hub.isOnline("lab01")).toBe(false);
    expect(channel.closed?.code).toBe(CHANNEL_CLOSE.offline);
    expect(hub.state("lab01")).toMatchObject({ online: false, connected: false });
  });

  it("ends runs in flight as gone when the channel closes, the node goes offline or a newer channel replaces it", async () => {
    const { clock, hub } = await setup();
    const gone: string[] = [];
    const listener = (id: string) => ({
      onMessage: () => {},
      onGone: (why: string) => gone.push(`${id}:${why}`),
    });

    const first = new RecordingChannel();
    const detach = hub.attach("lab01", first);
    expect(hub.startRun("lab01", runMessage("r1"), listener("r1"))).toBe(true);
    expect(hub.state("lab01")?.runsInFlight).toBe(1);
    detach();
    expect(gone).toEqual(["r1:channel_closed"]);

    const second = new RecordingChannel();
    hub.attach("lab01", second);
    hub.startRun("lab01", runMessage("r2"), listener("r2"));
    hub.attach("lab01", new RecordingChannel());
    expect(second.closed?.code).toBe(CHANNEL_CLOSE.replaced);
    expect(gone).toEqual(["r1:channel_closed", "r2:channel_closed"]);

    hub.startRun("lab01", runMessage("r3"), listener("r3"));
    clock.advance(OFFLINE_AFTER_MS);
    hub.tick();
    expect(gone).toEqual(["r1:channel_closed", "r2:channel_closed", "r3:offline"]);
    // An offline node takes no run: nothing is sent.
    expect(hub.startRun("lab01", runMessage("r4"), listener("r4"))).toBe(false);
  });

  it("routes a run's messages to that run only, from the node it was sent to", async () => {
    const { registry, hub } = await setup();
    await registry.add("lab02");
    const seen: string[] = [];
    hub.attach("lab01", new RecordingChannel());
    hub.attach("lab02", new RecordingChannel());
    hub.startRun("lab01", runMessage("r1"), {
      onMessage: (message) => seen.push(message.type),
      onGone: () => seen.push("gone"),
    });
    // Another node cannot speak for this run.
    hub.receive("lab02", { type: "run-output", requestId: "r1", stream: "stdout", chunk: "forged" });
    hub.receive("lab01", { type: "run-output", requestId: "r1", stream: "stdout", chunk: "hi" });
    hub.receive("lab01", {
      type: "run-ended",
      requestId: "r1",
      outcome: {
        status: "ok",
        exitCode: 0,
        stdout: "hi",
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 1,
      },
    });
    hub.receive("lab01", { type: "run-output", requestId: "r1", stream: "stdout", chunk: "late" });
    expect(seen).toEqual(["run-output", "run-ended"]);
    expect(hub.state("lab01")?.runsInFlight).toBe(0);
  });

  it("wakes a run waiting for a skill when a heartbeat lists it, and sends sync-skills on request", async () => {
    const { hub } = await setup();
    const channel = new RecordingChannel();
    hub.attach("lab01", channel);
    expect(hub.sync("lab01")).toBe(true);
    expect(channel.sent.at(-1)).toEqual({ type: "sync-skills" });
    const waiting = hub.waitForHeld("lab01", "demo", HASH, 60_000);
    hub.heartbeat("lab01", beat({ demo: "b".repeat(64) }));
    hub.heartbeat("lab01", beat({ demo: HASH }));
    expect(await waiting).toBe(true);
    expect(await hub.waitForHeld("lab01", "other", HASH, 1)).toBe(false);
  });

  it("disconnects a node removed from the registry by another process, and sends a sync a CLI asked for", async () => {
    const { data, hub } = await setup();
    const other = new NodeRegistry({ dataFolder: data });
    const channel = new RecordingChannel();
    hub.attach("lab01", channel);
    await other.requestSync("lab01");
    hub.tick();
    expect(channel.sent.filter((message) => message.type === "sync-skills")).toHaveLength(1);
    hub.tick();
    expect(channel.sent.filter((message) => message.type === "sync-skills")).toHaveLength(1);
    await other.remove("lab01");
    hub.tick();
    expect(channel.closed?.code).toBe(CHANNEL_CLOSE.removed);
    expect(hub.state("lab01")).toBeUndefined();
  });
});
