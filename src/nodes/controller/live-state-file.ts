import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Clock } from "../../core/clock.js";
import { readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { isPlainObject } from "../../core/safe-json.js";
import { type NodeState, OFFLINE_AFTER_MS } from "./node-hub.js";
import { NODES_FOLDER } from "./node-registry.js";

/** The live-state file's name inside `<data>/nodes`. */
export const LIVE_STATE_FILE = "live.json";
/** The running server rewrites the file at least this often, so a reader can tell a stopped one. */
export const LIVE_STATE_REFRESH_MS = 15_000;
/** And at most this often, however many heartbeats arrive. */
const MIN_WRITE_GAP_MS = 1_000;
const MAX_LIVE_STATE_BYTES = 16 * 1024 * 1024;

/** What the file holds: every node's live state as the server saw it at `writtenAt`. */
export interface LiveStateDocument {
  readonly writtenAt: string;
  /** False once the server stopped (every node is then offline). */
  readonly serving: boolean;
  /** The server's URL, for the agent command `skillgate nodes add` prints. */
  readonly url?: string;
  readonly nodes: readonly NodeState[];
}

/**
 * `<data>/nodes/live.json`: the running server's view of its nodes, for `skillgate nodes list`
 * in another process (docs/nodes.md, "The controller"). Written atomically, coalesced (at
 * most once a second) and refreshed every {@link LIVE_STATE_REFRESH_MS}; a reader treats a
 * file older than {@link OFFLINE_AFTER_MS} as a server that is gone.
 */
export class LiveStateWriter {
  readonly #file: string;
  readonly #clock: Clock;
  readonly #states: () => NodeState[];
  #lastWrite = 0;
  #pending: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** The server's URL once it listens. */
  url: string | undefined;

  constructor(dataFolder: string, clock: Clock, states: () => NodeState[]) {
    this.#file = join(dataFolder, NODES_FOLDER, LIVE_STATE_FILE);
    this.#clock = clock;
    this.#states = states;
  }

  /** Something changed: write soon (now, or once the gap since the last write has passed). */
  changed(): void {
    if (this.#closed || this.#pending !== undefined) return;
    const wait = this.#lastWrite + MIN_WRITE_GAP_MS - this.#clock.now();
    if (wait <= 0) {
      this.write(true);
      return;
    }
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      this.write(true);
    }, wait);
    this.#pending.unref();
  }

  /** Called on the hub's tick: rewrites the file when it is getting old. */
  refresh(): void {
    if (!this.#closed && this.#clock.now() - this.#lastWrite >= LIVE_STATE_REFRESH_MS) this.write(true);
  }

  /** Writes the file now; `serving: false` marks every node offline (the server is stopping). */
  write(serving: boolean): void {
    this.#lastWrite = this.#clock.now();
    try {
      const nodes = this.#states().map((state) =>
        serving ? state : { ...state, online: false, connected: false },
      );
      const document: LiveStateDocument = {
        writtenAt: new Date(this.#lastWrite).toISOString(),
        serving,
        ...(this.url !== undefined ? { url: this.url } : {}),
        nodes,
      };
      mkdirSync(dirname(this.#file), { recursive: true, mode: 0o700 });
      writeFileAtomicallySync(this.#file, `${JSON.stringify(document)}\n`, { mode: 0o600 });
    } catch {
      // The file is a convenience for other processes; the server's own state is in memory.
    }
  }

  /** Stops writing, after one last write saying the server has stopped. */
  close(): void {
    if (this.#pending !== undefined) clearTimeout(this.#pending);
    this.#pending = undefined;
    if (!this.#closed) this.write(false);
    this.#closed = true;
  }
}

/**
 * The live state another process wrote, or undefined when there is none. A file older than
 * {@link OFFLINE_AFTER_MS} (its server died without saying so) reads as `serving: false` with
 * every node offline.
 */
export function readLiveState(dataFolder: string, now: number): LiveStateDocument | undefined {
  const text = readSmallFile(join(dataFolder, NODES_FOLDER, LIVE_STATE_FILE), MAX_LIVE_STATE_BYTES);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || typeof value.writtenAt !== "string" || !Array.isArray(value.nodes))
    return undefined;
  const nodes = value.nodes.filter(
    (node: unknown): node is NodeState => isPlainObject(node) && typeof node.name === "string",
  );
  const fresh = value.serving === true && now - Date.parse(value.writtenAt) < OFFLINE_AFTER_MS;
  return {
    writtenAt: value.writtenAt,
    serving: fresh,
    ...(typeof value.url === "string" ? { url: value.url } : {}),
    nodes: fresh ? nodes : nodes.map((node) => ({ ...node, online: false, connected: false })),
  };
}
