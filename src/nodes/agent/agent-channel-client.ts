import WebSocket from "ws";
import { describeError } from "../../core/errors.js";
import type { Logger } from "../../observe/logger.js";
import {
  AGENT_PROTOCOL_VERSION,
  AGENT_ROUTES,
  type AgentMessage,
  type ControllerMessage,
} from "../protocol.js";

/** The largest message the agent accepts from the controller: a run's arguments fit well inside. */
export const MAX_CONTROLLER_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Reconnection delays: doubling from the first to the cap, each with jitter. */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** 0.5 s doubling up to 30 s. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000 };

/** How often the agent pings the controller; a ping unanswered by the next one ends the connection. */
export const CHANNEL_PING_MS = 20_000;

/** Options of {@link AgentChannelClient}. */
export interface AgentChannelClientOptions {
  /** The controller's origin, `http(s)://host:port`. */
  readonly controller: string;
  /** The node credential sent as `Authorization: Bearer`. */
  readonly credential: string;
  readonly onMessage: (message: ControllerMessage) => void;
  /** Told when the channel opens (after the controller's `welcome`) and when it closes. */
  readonly onState?: (connected: boolean) => void;
  readonly logger: Logger;
  readonly backoff?: Backoff;
  /** A number in [0, 1) for the jitter (default Math.random). */
  readonly random?: () => number;
}

/**
 * The delay before reconnection attempt `attempt` (0 for the first): the initial delay
 * doubled per attempt, capped, then "equal jitter" (half fixed, half random), so many agents
 * cut off by one controller restart do not all come back at the same instant.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number): number {
  const exponential = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

/** The channel's WebSocket URL for a controller origin (`http` → `ws`, `https` → `wss`). */
export function channelUrl(controller: string): string {
  const url = new URL(AGENT_ROUTES.channel, controller);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/**
 * The agent's end of the run channel: one outbound WebSocket to the controller (so a node
 * behind NAT works), opened with the node credential, reopened after any close with capped
 * exponential backoff and jitter, until {@link close}. Messages from the controller are
 * parsed and size-bounded; what is not a known message is logged and dropped.
 */
export class AgentChannelClient {
  readonly #options: AgentChannelClientOptions;
  readonly #backoff: Backoff;
  readonly #random: () => number;
  #socket: WebSocket | undefined;
  #open = false;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  #ping: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: AgentChannelClientOptions) {
    this.#options = options;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#random = options.random ?? Math.random;
  }

  /** True while the channel is open and the controller welcomed this node. */
  get connected(): boolean {
    return this.#open;
  }

  /** Opens the channel (and keeps reopening it). */
  start(): void {
    if (this.#closed || this.#socket !== undefined) return;
    this.#connect();
  }

  /** Sends a message; false (nothing sent) while the channel is down. */
  send(message: AgentMessage): boolean {
    const socket = this.#socket;
    if (!this.#open || socket === undefined || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  /** Closes the channel for good and waits for the socket to close. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    clearInterval(this.#ping);
    const socket = this.#socket;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2_000);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(1001, "agent stopping");
    });
  }

  #connect(): void {
    const { logger } = this.#options;
    const socket = new WebSocket(channelUrl(this.#options.controller), {
      headers: { Authorization: `Bearer ${this.#options.credential}` },
      maxPayload: MAX_CONTROLLER_MESSAGE_BYTES,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    this.#socket = socket;
    let alive = true;
    let lastError: string | undefined;
    socket.on("open", () => {
      socket.send(JSON.stringify({ type: "hello", protocol: AGENT_PROTOCOL_VERSION } satisfies AgentMessage));
      this.#ping = setInterval(() => {
        if (!alive) {
          logger.warn("channel: the controller stopped answering pings; reconnecting");
          socket.terminate();
          return;
        }
        alive = false;
        socket.ping();
      }, CHANNEL_PING_MS);
      this.#ping.unref();
    });
    socket.on("pong", () => {
      alive = true;
    });
    socket.on("message", (data, isBinary) => {
      alive = true;
      const message = isBinary ? undefined : parseMessage(String(data));
      if (message === undefined) {
        logger.warn("channel: dropped a message that is not one the protocol knows");
        return;
      }
      if (message.type === "welcome") {
        if (message.protocol !== AGENT_PROTOCOL_VERSION) {
          logger.warn("channel: the controller speaks another protocol version", {
            controller: String(message.protocol),
            agent: AGENT_PROTOCOL_VERSION,
          });
          socket.close(1002, "protocol version");
          return;
        }
        this.#open = true;
        this.#attempt = 0;
        logger.info("channel open", { node: message.node });
        this.#options.onState?.(true);
      }
      this.#options.onMessage(message);
    });
    socket.on("unexpected-response", (_request, response) => {
      lastError = `the controller refused the connection with HTTP ${response.statusCode ?? 0}`;
      socket.terminate();
    });
    socket.on("error", (error) => {
      lastError = describeError(error);
    });
    socket.on("close", (code) => {
      clearInterval(this.#ping);
      const wasOpen = this.#open;
      this.#open = false;
      this.#socket = undefined;
      if (wasOpen) {
        logger.info("channel closed", { code });
        this.#options.onState?.(false);
      }
      if (this.#closed) return;
      const delay = backoffDelay(this.#attempt, this.#backoff, this.#random);
      this.#attempt += 1;
      // One line per attempt, with why the last one failed.
      logger.info("channel: reconnecting", {
        inMs: delay,
        attempt: this.#attempt,
        ...(lastError !== undefined ? { error: lastError } : {}),
      });
      this.#retry = setTimeout(() => this.#connect(), delay);
    });
  }
}

const MESSAGE_TYPES: ReadonlySet<string> = new Set(["welcome", "run", "cancel", "sync-skills"]);

/** A controller message, or undefined for text that is not JSON or not a known message. */
export function parseMessage(text: string): ControllerMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const type = (parsed as { type?: unknown }).type;
  if (typeof type !== "string" || !MESSAGE_TYPES.has(type)) return undefined;
  return parsed as ControllerMessage;
}
