import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { isPlainObject } from "../../core/safe-json.js";
import type { NodeController } from "../../nodes/controller/node-controller.js";
import { CHANNEL_CLOSE, type NodeChannel } from "../../nodes/controller/node-hub.js";
import {
  AGENT_PROTOCOL_VERSION,
  AGENT_ROUTES,
  type AgentMessage,
  type NodeRunOutcome,
} from "../../nodes/protocol.js";
import type { RunStatus } from "../../runners/contract.js";
import { nodeOfAuthorization } from "./agent-routes.js";
import { type AllowedHosts, isAllowedAuthority } from "./security/allowed-hosts.js";
import type { LoginAttempts } from "./security/login-attempts.js";

/** The largest message an agent may send up the channel (a run's end carries both streams, each capped). */
export const MAX_AGENT_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How long a new channel has to say `hello` before it is closed. */
export const HELLO_TIMEOUT_MS = 10_000;

/** The run channel's handler of the HTTP server's `upgrade` event; `close` ends every channel. */
export interface AgentChannelServer {
  /** Handles an upgrade of {@link AGENT_ROUTES.channel}; false for any other path (the caller refuses it). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): void;
}

/** What {@link agentChannelServer} checks an upgrade against. */
export interface AgentChannelOptions {
  readonly nodes: NodeController;
  readonly allowed: AllowedHosts;
  readonly attempts: LoginAttempts;
}

/**
 * The run channel (docs/nodes.md, "The controller"): a WebSocket on the server's own port
 * (`ws` in `noServer` mode). An upgrade is taken only with an allowed `Host`, no foreign
 * `Origin` (a browser page cannot open it) and a node credential; the socket is then the
 * node's in the hub. The agent must say `hello` with the protocol version first; every
 * message is size-capped JSON, checked for shape, and a malformed one closes the channel.
 */
export function agentChannelServer(options: AgentChannelOptions): AgentChannelServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_AGENT_MESSAGE_BYTES });
  const takeUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== AGENT_ROUTES.channel) return false;
    const client = request.socket.remoteAddress ?? "unknown";
    const host = request.headers.host;
    if (host === undefined || !isAllowedAuthority(options.allowed, host)) {
      refuse(socket, 403, "the Host header does not name this server");
      return true;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host, options.allowed)) {
      refuse(socket, 403, "the request comes from another site");
      return true;
    }
    if (options.attempts.retryAfterMs(client) > 0) {
      refuse(socket, 429, "too many failed logins");
      return true;
    }
    const node = nodeOfAuthorization(options.nodes, request.headers.authorization);
    if (node === undefined) {
      if (request.headers.authorization !== undefined) options.attempts.recordFailure(client);
      refuse(socket, 401, "send Authorization: Bearer <node credential>");
      return true;
    }
    sockets.handleUpgrade(request, socket, head, (webSocket) =>
      serveChannel(options.nodes, node.name, webSocket),
    );
    return true;
  };
  return {
    // An upgrade handler that throws would escape the HTTP server's `upgrade` event and leave
    // the socket hanging: whatever fails while taking one answers 500 and ends the socket.
    handleUpgrade: (request, socket, head) => {
      try {
        return takeUpgrade(request, socket, head);
      } catch {
        refuse(socket, 500, "the channel could not be opened");
        return true;
      }
    },
    close: () => {
      for (const client of sockets.clients)
        client.close(CHANNEL_CLOSE.stopping, "the controller is stopping");
      sockets.close();
    },
  };
}

function serveChannel(nodes: NodeController, name: string, webSocket: WebSocket): void {
  const channel: NodeChannel = {
    send: (message) => {
      if (webSocket.readyState !== WebSocket.OPEN) return false;
      webSocket.send(JSON.stringify(message));
      return true;
    },
    close: (code, reason) => webSocket.close(code, reason),
  };
  let detach: (() => void) | undefined;
  const helloTimer = setTimeout(() => webSocket.close(CHANNEL_CLOSE.protocol, "no hello"), HELLO_TIMEOUT_MS);
  helloTimer.unref();
  webSocket.on("message", (data: RawData, isBinary: boolean) => {
    const message = isBinary ? undefined : agentMessageOf(textOf(data));
    if (message === undefined) {
      webSocket.close(CHANNEL_CLOSE.protocol, "malformed message");
      return;
    }
    if (detach === undefined) {
      if (message.type !== "hello" || message.protocol !== AGENT_PROTOCOL_VERSION) {
        webSocket.close(
          CHANNEL_CLOSE.protocol,
          `speak protocol ${AGENT_PROTOCOL_VERSION}, starting with hello`,
        );
        return;
      }
      clearTimeout(helloTimer);
      detach = nodes.hub.attach(name, channel);
      return;
    }
    nodes.hub.receive(name, message);
  });
  webSocket.on("close", () => {
    clearTimeout(helloTimer);
    detach?.();
  });
  webSocket.on("error", () => webSocket.terminate());
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}

const RUN_STATUSES: readonly RunStatus[] = ["ok", "failed", "timed_out", "interrupted", "refused"];

/** The agent message in `text`, checked for shape, or undefined. */
export function agentMessageOf(text: string): AgentMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || typeof value.type !== "string") return undefined;
  if (value.type === "hello")
    return typeof value.protocol === "number" ? { type: "hello", protocol: value.protocol } : undefined;
  const requestId = value.requestId;
  if (typeof requestId !== "string" || requestId.length === 0 || requestId.length > 100) return undefined;
  switch (value.type) {
    case "run-started":
      return { type: "run-started", requestId };
    case "run-output":
      if ((value.stream !== "stdout" && value.stream !== "stderr") || typeof value.chunk !== "string")
        return undefined;
      return { type: "run-output", requestId, stream: value.stream, chunk: value.chunk };
    case "run-ended": {
      const outcome = outcomeOf(value.outcome);
      return outcome === undefined ? undefined : { type: "run-ended", requestId, outcome };
    }
    default:
      return undefined;
  }
}

function outcomeOf(value: unknown): NodeRunOutcome | undefined {
  if (!isPlainObject(value)) return undefined;
  const {
    status,
    exitCode,
    stdout,
    stderr,
    stdoutTruncated,
    stderrTruncated,
    durationMs,
    code,
    message,
    signal,
  } = value;
  if (typeof status !== "string" || !RUN_STATUSES.includes(status as RunStatus)) return undefined;
  if (exitCode !== null && (typeof exitCode !== "number" || !Number.isInteger(exitCode))) return undefined;
  if (typeof stdout !== "string" || typeof stderr !== "string") return undefined;
  if (typeof stdoutTruncated !== "boolean" || typeof stderrTruncated !== "boolean") return undefined;
  if (typeof durationMs !== "number" || !Number.isFinite(durationMs)) return undefined;
  return {
    status: status as RunStatus,
    exitCode,
    stdout,
    stderr,
    stdoutTruncated,
    stderrTruncated,
    durationMs,
    ...(typeof code === "string" ? { code: code.slice(0, 100) } : {}),
    ...(typeof message === "string" ? { message: message.slice(0, 4000) } : {}),
    ...(typeof signal === "string" ? { signal: signal.slice(0, 32) } : {}),
  };
}

function sameOrigin(origin: string, host: string, allowed: AllowedHosts): boolean {
  try {
    const url = new URL(origin);
    return url.host.toLowerCase() === host.trim().toLowerCase() || isAllowedAuthority(allowed, url.host);
  } catch {
    return false;
  }
}

/** Each refused upgrade's status line and error code (anything else is a 403 `forbidden`). */
const REFUSALS: Readonly<Record<number, { reason: string; code: string }>> = {
  401: { reason: "Unauthorized", code: "node_unauthorized" },
  429: { reason: "Too Many Requests", code: "too_many_attempts" },
  500: { reason: "Internal Server Error", code: "internal_error" },
};

function refuse(socket: Duplex, status: number, message: string): void {
  const { reason, code } = REFUSALS[status] ?? { reason: "Forbidden", code: "forbidden" };
  const body = JSON.stringify({ error: { code, message, data: {} } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
