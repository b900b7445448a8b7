import { type Clock, systemClock } from "../../core/clock.js";
import {
  AGENT_PROTOCOL_VERSION,
  type AgentMessage,
  type ControllerMessage,
  HEARTBEAT_INTERVAL_MS,
  type Heartbeat,
  MISSED_BEATS_OFFLINE,
  type NodeRunMessage,
  type NodeSandboxFeature,
} from "../protocol.js";
import type { NodeEntry, NodeRegistry } from "./node-registry.js";

/** One open run channel to a node, as the hub uses it; agent-channel.ts adapts a WebSocket. */
export interface NodeChannel {
  /** Sends one message; false when the channel is no longer open. */
  send(message: ControllerMessage): boolean;
  /** Closes the channel with a WebSocket close code and a short reason. */
  close(code: number, reason: string): void;
}

/** What a run sent to a node is told while it lasts. */
export interface RunListener {
  /** Every message of this run the node sends up (`run-started`, `run-output`, `run-ended`). */
  onMessage(message: Extract<AgentMessage, { requestId: string }>): void;
  /** The channel closed or the node went offline before `run-ended`: the run is over, not re-sent. */
  onGone(why: "channel_closed" | "offline" | "removed"): void;
}

/** A node's live state joined with its registry entry (what `skillgate nodes list` shows). */
export interface NodeState extends NodeEntry {
  /** Channel open and a heartbeat (or the channel's opening) within {@link OFFLINE_AFTER_MS}. */
  readonly online: boolean;
  readonly connected: boolean;
  /** ISO time of the last heartbeat, if any since this controller started. */
  readonly lastHeartbeatAt?: string;
  readonly features: readonly string[];
  readonly sandbox?: NodeSandboxFeature;
  readonly os?: string;
  readonly arch?: string;
  readonly agentVersion?: string;
  /** `name → full hash` the node said it holds in its last heartbeat. */
  readonly skills: Readonly<Record<string, string>>;
  /** Runs this controller sent there that have not ended. */
  readonly runsInFlight: number;
}

/** A node is offline once this long passed without a beat. */
export const OFFLINE_AFTER_MS = HEARTBEAT_INTERVAL_MS * MISSED_BEATS_OFFLINE;

/** WebSocket close codes the controller uses (4000–4999 are the application's). */
export const CHANNEL_CLOSE = {
  replaced: 4000,
  offline: 4001,
  removed: 4002,
  protocol: 4003,
  stopping: 1001,
} as const;

/** Options of {@link NodeHub}. */
export interface NodeHubOptions {
  readonly registry: NodeRegistry;
  readonly clock?: Clock;
  /** How often the hub looks for missed beats and registry changes; `false` for never (tests call {@link NodeHub.tick}). */
  readonly tickMs?: number | false;
  /** Told whenever a node's state changes (online, offline, heartbeat, runs). */
  readonly onChange?: (name: string) => void;
  /** Called after every {@link NodeHub.tick}. */
  readonly onTick?: () => void;
}

interface Live {
  channel?: NodeChannel | undefined;
  lastSeenAt?: number;
  lastHeartbeatAt?: number;
  heartbeat?: Heartbeat;
  runs: Map<string, RunListener>;
  syncRequestedAt?: string;
}

interface HeldWaiter {
  readonly skill: string;
  readonly hash: string;
  readonly wake: (held: boolean) => void;
}

/**
 * The live state of every node (docs/nodes.md, "The controller"): which channel is open, the
 * last heartbeat and what it said, and the runs in flight. A node is online while its channel
 * is open and it beat within {@link OFFLINE_AFTER_MS}; {@link tick} (on a timer, or called by
 * tests with an injected clock) marks it offline after that, closes its channel and ends its
 * runs `interrupted`. A node removed from the registry (by this server or a CLI) is
 * disconnected on the next tick, and an owner's sync request written by a CLI is sent then.
 */
export class NodeHub {
  readonly registry: NodeRegistry;
  readonly #clock: Clock;
  readonly #live = new Map<string, Live>();
  readonly #waiters = new Map<string, Set<HeldWaiter>>();
  readonly #onChange: ((name: string) => void) | undefined;
  readonly #onTick: (() => void) | undefined;
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: NodeHubOptions) {
    this.registry = options.registry;
    this.#clock = options.clock ?? systemClock;
    this.#onChange = options.onChange;
    this.#onTick = options.onTick;
    const tickMs = options.tickMs ?? 1000;
    if (tickMs !== false) {
      this.#timer = setInterval(() => this.tick(), tickMs);
      this.#timer.unref();
    }
  }

  /**
   * Takes a node's newly opened channel: an older one of the same node is closed (its runs
   * end `interrupted`), a welcome is sent, and the node counts as seen now. Returns what the
   * channel calls when it closes.
   */
  attach(name: string, channel: NodeChannel): () => void {
    const live = this.#liveOf(name);
    if (live.channel !== undefined) this.#drop(name, live, CHANNEL_CLOSE.replaced, "a newer channel opened");
    live.channel = channel;
    live.lastSeenAt = this.#clock.now();
    channel.send({ type: "welcome", node: name, protocol: AGENT_PROTOCOL_VERSION });
    this.#changed(name);
    return () => {
      if (live.channel !== channel) return;
      live.channel = undefined;
      this.#endRuns(live, "channel_closed");
      this.#changed(name);
    };
  }

  /** A message the node sent up its channel: a run's messages go to that run, and only from this node. */
  receive(name: string, message: AgentMessage): void {
    const live = this.#live.get(name);
    if (live === undefined) return;
    live.lastSeenAt = this.#clock.now();
    if (message.type === "hello") return;
    const listener = live.runs.get(message.requestId);
    if (listener === undefined) return;
    if (message.type === "run-ended") {
      live.runs.delete(message.requestId);
      this.#changed(name);
    }
    listener.onMessage(message);
  }

  /** A heartbeat of `name`; wakes runs waiting for a skill it now holds. */
  heartbeat(name: string, beat: Heartbeat): void {
    const live = this.#liveOf(name);
    const now = this.#clock.now();
    live.heartbeat = beat;
    live.lastHeartbeatAt = now;
    live.lastSeenAt = now;
    const waiting = this.#waiters.get(name);
    if (waiting !== undefined)
      for (const waiter of [...waiting])
        if (beat.skills[waiter.skill] === waiter.hash) {
          waiting.delete(waiter);
          waiter.wake(true);
        }
    this.#changed(name);
  }

  /** True when the node's channel is open and it was seen within {@link OFFLINE_AFTER_MS}. */
  isOnline(name: string): boolean {
    const live = this.#live.get(name);
    return (
      live?.channel !== undefined &&
      live.lastSeenAt !== undefined &&
      this.#clock.now() - live.lastSeenAt < OFFLINE_AFTER_MS
    );
  }

  /** When the node was last seen (heartbeat or channel), or undefined if never since this start. */
  lastSeen(name: string): number | undefined {
    return this.#live.get(name)?.lastSeenAt;
  }

  /** True when the node's last heartbeat lists `skill` at `hash`. */
  holds(name: string, skill: string, hash: string): boolean {
    return this.#live.get(name)?.heartbeat?.skills[skill] === hash;
  }

  /** Asks the node to run SkillSync now; false when its channel is not open. */
  sync(name: string): boolean {
    return this.#live.get(name)?.channel?.send({ type: "sync-skills" }) ?? false;
  }

  /**
   * Waits until a heartbeat of `name` lists `skill` at `hash` (true), or `timeoutMs` passed,
   * the signal aborted or the node went offline (false).
   */
  waitForHeld(
    name: string,
    skill: string,
    hash: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (this.holds(name, skill, hash)) return Promise.resolve(true);
    // An aborted signal never fires again: waiting on it would last the whole timeout.
    if (signal?.aborted === true) return Promise.resolve(false);
    return new Promise((resolve) => {
      let waiting = this.#waiters.get(name);
      if (waiting === undefined) {
        waiting = new Set();
        this.#waiters.set(name, waiting);
      }
      const set = waiting;
      const finish = (held: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
        set.delete(waiter);
        resolve(held);
      };
      const aborted = (): void => finish(false);
      const waiter: HeldWaiter = { skill, hash, wake: finish };
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener("abort", aborted, { once: true });
      set.add(waiter);
    });
  }

  /**
   * Sends a run to `name` and routes its messages to `listener` until `run-ended`. False
   * when the node has no open channel (nothing was sent). The message is sent once: the hub
   * never re-sends a run, whatever happens to the channel.
   */
  startRun(name: string, message: NodeRunMessage, listener: RunListener): boolean {
    const live = this.#live.get(name);
    if (live?.channel === undefined || !this.isOnline(name)) return false;
    live.runs.set(message.requestId, listener);
    if (!live.channel.send(message)) {
      live.runs.delete(message.requestId);
      return false;
    }
    this.#changed(name);
    return true;
  }

  /** Asks the node to cancel a run (best effort; the run still ends with the node's `run-ended`). */
  cancel(name: string, requestId: string): void {
    this.#live.get(name)?.channel?.send({ type: "cancel", requestId });
  }

  /** Forgets a run without waiting for its end (the runner gave up on it after cancelling). */
  abandon(name: string, requestId: string): void {
    const live = this.#live.get(name);
    if (live?.runs.delete(requestId) === true) this.#changed(name);
  }

  /** Closes a node's channel (it was removed): its runs end `interrupted`. */
  disconnect(name: string, why: "removed" | "offline" = "removed"): void {
    const live = this.#live.get(name);
    if (live === undefined) return;
    this.#drop(
      name,
      live,
      why === "removed" ? CHANNEL_CLOSE.removed : CHANNEL_CLOSE.offline,
      why === "removed" ? "the node was removed" : "missed heartbeats",
      why,
    );
    if (why === "removed") this.#live.delete(name);
  }

  /** Every registered node with its live state, by name. */
  states(): NodeState[] {
    return this.registry.list().map((entry) => this.#stateOf(entry));
  }

  /** One node's state, or undefined when no such node is registered. */
  state(name: string): NodeState | undefined {
    const entry = this.registry.get(name);
    return entry === undefined ? undefined : this.#stateOf(entry);
  }

  /**
   * Marks nodes offline whose last beat is older than {@link OFFLINE_AFTER_MS} (their channel is
   * closed, their runs end `interrupted`), disconnects nodes the registry no longer lists, and
   * sends the sync requests a CLI wrote to the registry.
   */
  tick(): void {
    if (this.#closed) return;
    let known: Map<string, NodeEntry> | undefined;
    try {
      known = new Map(this.registry.list().map((entry) => [entry.name, entry]));
    } catch {
      // A damaged registry is reported by the routes (and refused by runs) that read it; this
      // runs on a timer, so it must not throw. Live nodes stay as they are: nothing is known
      // to be removed, and no sync request can be read.
      known = undefined;
    }
    for (const [name, live] of this.#live) {
      const entry = known?.get(name);
      if (known !== undefined && entry === undefined) {
        this.disconnect(name, "removed");
        continue;
      }
      if (live.channel !== undefined && !this.isOnline(name)) this.disconnect(name, "offline");
      if (entry?.syncRequestedAt !== undefined && entry.syncRequestedAt !== live.syncRequestedAt) {
        this.sync(name);
        live.syncRequestedAt = entry.syncRequestedAt;
      }
    }
    this.#onTick?.();
  }

  /** Closes every channel (the server is stopping); runs in flight end `interrupted`. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    for (const [name, live] of this.#live)
      this.#drop(name, live, CHANNEL_CLOSE.stopping, "the controller is stopping");
    for (const waiting of this.#waiters.values()) for (const waiter of [...waiting]) waiter.wake(false);
  }

  #liveOf(name: string): Live {
    let live = this.#live.get(name);
    if (live === undefined) {
      live = { runs: new Map() };
      const requested = this.#syncRequestedAt(name);
      if (requested !== undefined) live.syncRequestedAt = requested;
      this.#live.set(name, live);
    }
    return live;
  }

  /** The last sync the owner asked of `name`, or undefined (also when the registry cannot be read). */
  #syncRequestedAt(name: string): string | undefined {
    try {
      return this.registry.get(name)?.syncRequestedAt;
    } catch {
      return undefined;
    }
  }

  #drop(
    name: string,
    live: Live,
    code: number,
    reason: string,
    why: "offline" | "removed" | "channel_closed" = "channel_closed",
  ): void {
    const channel = live.channel;
    live.channel = undefined;
    this.#endRuns(live, why);
    const waiting = this.#waiters.get(name);
    if (waiting !== undefined && why !== "channel_closed")
      for (const waiter of [...waiting]) waiter.wake(false);
    try {
      channel?.close(code, reason);
    } catch {
      // Closing a channel that is already going cannot fail the caller.
    }
    this.#changed(name);
  }

  #endRuns(live: Live, why: "channel_closed" | "offline" | "removed"): void {
    const runs = [...live.runs.values()];
    live.runs.clear();
    for (const listener of runs) listener.onGone(why);
  }

  #stateOf(entry: NodeEntry): NodeState {
    const live = this.#live.get(entry.name);
    const beat = live?.heartbeat;
    return {
      ...entry,
      online: this.isOnline(entry.name),
      connected: live?.channel !== undefined,
      ...(live?.lastHeartbeatAt !== undefined
        ? { lastHeartbeatAt: new Date(live.lastHeartbeatAt).toISOString() }
        : {}),
      features: beat?.features ?? [],
      ...(beat !== undefined
        ? { sandbox: beat.sandbox, os: beat.os, arch: beat.arch, agentVersion: beat.agentVersion }
        : {}),
      skills: beat?.skills ?? {},
      runsInFlight: live?.runs.size ?? 0,
    };
  }

  #changed(name: string): void {
    try {
      this.#onChange?.(name);
    } catch {
      // A listener's failure is its own.
    }
  }
}
