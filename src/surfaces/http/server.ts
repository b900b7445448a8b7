import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { type CapabilityReloads, startCapabilityReloads } from "../../app/capability-reloads.js";
import { type QueueService, startQueueService } from "../../app/queue-service.js";
import { InvalidArgumentError } from "../../core/errors.js";
import { resolveFolders } from "../../core/folders.js";
import { listenError } from "../../core/listen-error.js";
import { defaultNodePackaging } from "../../nodes/controller/default-packaging.js";
import { NodeController, type NodePackaging } from "../../nodes/controller/node-controller.js";
import { type Logger, silentLogger } from "../../observe/logger.js";
import { McpHost, type McpHostOptions } from "../mcp/host.js";
import { isLoopbackHost } from "../mcp/http.js";
import { type McpHttpSessionLimits, McpHttpSessions } from "../mcp/http-sessions.js";
import { agentChannelServer } from "./agent-channel.js";
import { DEFAULT_HEARTBEAT_MS, eventStreams } from "./events-route.js";
import { allowedHosts } from "./security/allowed-hosts.js";
import type { OwnerCheck } from "./security/authenticate.js";
import { LOGIN_PATH } from "./security/login.js";
import { type LoginAttemptLimits, LoginAttempts } from "./security/login-attempts.js";
import { resolveOwnerToken } from "./security/owner-token.js";
import { createServerApp, type RequestTracker } from "./server-app.js";
import type { ServerContext } from "./server-context.js";
import { ServerEvents } from "./server-events.js";
import { defaultUiFolder } from "./static-ui.js";

/** The port `skillgate serve` listens on unless told otherwise. */
export const DEFAULT_SERVE_PORT = 3917;

/** How long a stop waits for API requests in flight before closing their connections. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** The address to bind (default `127.0.0.1`). Any other than a loopback address needs `token`. */
  readonly host?: string;
  /** The port (default {@link DEFAULT_SERVE_PORT}; 0 for any free port, see `port` on the result). */
  readonly port?: number;
  /** The owner's token. Without it, the one stored in the data folder, or a new one (see `loginUrl`). */
  readonly token?: string;
  /** Replace the stored token with a new one (ignored with `token`). */
  readonly newToken?: boolean;
  /** More names `Host` may carry, on any port: a reverse proxy's public name. */
  readonly allowedHosts?: readonly string[];
  /** How skillgate itself is opened: configuration and data folders, roots, built-ins, watch. */
  readonly skillgate?: Omit<McpHostOptions, "logger">;
  /** Limits of the `/mcp` sessions. */
  readonly mcp?: McpHttpSessionLimits;
  /** Failed-login limits. */
  readonly loginAttempts?: LoginAttemptLimits;
  /** Time between `/api/events` heartbeats (default {@link DEFAULT_HEARTBEAT_MS}). */
  readonly heartbeatMs?: number;
  /** The built web UI (default `<package>/dist/ui`). */
  readonly uiFolder?: string;
  /** How long a stop lets API requests finish (default {@link DEFAULT_STOP_GRACE_MS}). */
  readonly stopGraceMs?: number;
  /** Where the server's information lines go (default none). */
  readonly logger?: Logger;
  /**
   * How node packages are built and manifests signed (default: the package store and the
   * controller key in `<data>/nodes`). Tests may give their own.
   */
  readonly nodePackaging?: NodePackaging;
  /** How long a node run waits for the node to sync a skill it lacks (default 30 s). */
  readonly nodeSyncWaitMs?: number;
  /**
   * The worker pool's service (default true): gone callers' answers collected for the audit,
   * and the in-process worker per `queue.workers.in_process` (docs/queue.md).
   */
  readonly queue?: boolean;
}

/** A running `skillgate serve`. */
export interface RunningServer {
  /** `http://HOST:PORT/`: the web UI; `/api`, `/mcp` and `/login` are under it. */
  readonly url: string;
  readonly port: number;
  /**
   * `URL/login?token=TOKEN`, only when the token was made now: the one time it is shown.
   * Opening it in a browser logs in.
   */
  readonly loginUrl?: string;
  /** Where the owner token came from: given, made now, or stored by an earlier start. */
  readonly tokenOrigin: "given" | "made" | "stored";
  /** What the routes are given: the host, the store, the events bus. */
  readonly context: ServerContext;
  /**
   * Stops: new requests are refused (503) and no connection is accepted, live-update streams
   * end, running tool calls are interrupted (each ends `interrupted`, audited, and its client
   * is told), API requests in flight finish (up to the grace time), then the MCP sessions, the
   * chat database and the audit log close. No store write is left holding the store lock.
   */
  close(): Promise<void>;
}

/**
 * Starts `skillgate serve`: one McpHost (opened through the bootstrap, with its extensions),
 * the managed store, the events bus, and one HTTP server for `/api`, `/mcp`, `/api/events`
 * and the web UI. docs/server.md is the user's guide to what it answers and refuses.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const bindHost = options.host ?? "127.0.0.1";
  const givenToken = options.token !== undefined && options.token !== "" ? options.token : undefined;
  if (!isLoopbackHost(bindHost) && givenToken === undefined)
    throw new InvalidArgumentError(
      "token",
      `refusing to serve on ${bindHost} without a token you chose: give --token or SKILLGATE_SERVE_TOKEN, or bind to 127.0.0.1`,
    );
  const logger = options.logger ?? silentLogger;
  // The node runner is handed to the Skillgate, so the controller exists before it; the
  // catalog it reads for manifests is attached once the Skillgate does (listen).
  const events = new ServerEvents();
  const nodes = new NodeController({
    dataFolder: resolveFolders(options.skillgate ?? {}).data,
    onChange: (name) => events.publish({ type: "node-changed", name }),
    ...(options.nodeSyncWaitMs !== undefined ? { syncWaitMs: options.nodeSyncWaitMs } : {}),
  });
  let host: McpHost;
  try {
    host = await McpHost.open({
      ...options.skillgate,
      logger,
      runners: { ...options.skillgate?.runners, node: nodes.runner },
      nodes: { nodesFor: (skill) => nodes.nodesFor(skill) },
    });
  } catch (error) {
    nodes.close();
    throw error;
  }
  try {
    return await listen(host, nodes, events, bindHost, givenToken, logger, options);
  } catch (error) {
    nodes.close();
    await host.close();
    throw error;
  }
}

async function listen(
  host: McpHost,
  nodes: NodeController,
  events: ServerEvents,
  bindHost: string,
  givenToken: string | undefined,
  logger: Logger,
  options: ServerOptions,
): Promise<RunningServer> {
  const store = await host.skillgate.openStore();
  const owner = await resolveOwnerToken({
    dataFolder: host.skillgate.catalog.folders.data,
    ...(givenToken !== undefined ? { token: givenToken } : {}),
    ...(options.newToken === true ? { renew: true } : {}),
  });
  const catalog = host.skillgate.catalog;
  nodes.attach(
    { skills: () => catalog.discover().skills, nodesConfig: () => catalog.config.nodes },
    options.nodePackaging ??
      defaultNodePackaging(catalog.folders.data, {
        expiryMs: catalog.config.nodes.manifestTtlSeconds * 1000,
      }),
  );
  const queue: QueueService | undefined =
    options.queue === false ? undefined : await startQueueService(host.skillgate, logger);
  // The capability plane's events reach /api/events too: discovery, decisions, invocations
  // (who called what, and how it ended; never a payload) and reloads.
  const unsubscribeCapabilities = host.skillgate.capabilityEvents.on((event) =>
    events.publish({ type: "capability-event", name: event.name, at: event.at, data: event.data }),
  );
  const requests = new InFlight();
  let handle: ReturnType<typeof getRequestListener> | undefined;
  const server = createServer((request, response) => {
    if (handle !== undefined) void handle(request, response);
    else response.writeHead(503).end();
  });
  const requestedPort = options.port ?? DEFAULT_SERVE_PORT;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(listenError(error, bindHost, requestedPort)));
    server.listen(requestedPort, bindHost, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  server.on("error", (error) => logger.warn("server error", { error: error.name }));
  const reloads = await startReloads(host, events, logger);
  const context: ServerContext = { host, store, events, logger, nodes, ...(reloads ? { reloads } : {}) };
  const port = (server.address() as AddressInfo).port;
  const check: OwnerCheck = { owner, port, attempts: new LoginAttempts(options.loginAttempts) };
  const allowed = allowedHosts(bindHost, port, options.allowedHosts);
  // The node agents' run channel shares the port: a WebSocket upgrade of its path only.
  const channels = agentChannelServer({ nodes, allowed, attempts: check.attempts });
  server.on("upgrade", (request, socket, head) => {
    if (requests.stopping || !channels.handleUpgrade(request, socket, head)) socket.destroy();
  });
  const sessions = new McpHttpSessions(host, options.mcp);
  const streams = eventStreams(context.events, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  const app = createServerApp({
    context,
    check,
    allowed,
    sessions,
    streams,
    uiFolder: options.uiFolder ?? defaultUiFolder(),
    requests,
  });
  handle = getRequestListener(app.fetch, { overrideGlobalObjects: false });
  const url = `http://${urlHost(bindHost)}:${port}/`;
  nodes.setControllerUrl(url.replace(/\/$/, ""));
  let closing: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    requests.stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Node channels close first: their runs in flight end interrupted, never re-sent.
    nodes.close();
    channels.close();
    unsubscribeCapabilities();
    await streams.closeAll();
    await sessions.interruptCalls("the server is stopping");
    await requests.settled(options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
    await sessions.close();
    server.closeAllConnections();
    await closed;
    await reloads?.close();
    await queue?.close();
    await host.close();
  };
  return {
    url,
    port,
    ...(owner.madeToken !== undefined
      ? { loginUrl: `${url}${LOGIN_PATH.slice(1)}?token=${encodeURIComponent(owner.madeToken)}` }
      : {}),
    tokenOrigin: owner.origin,
    context,
    close: () => {
      closing ??= stop();
      return closing;
    },
  };
}

/**
 * The Lua skills' hot reload (app/capability-reloads.ts), started once the port is bound (so a
 * port in use leaves nothing watching) and before any request is handled: every door reaches
 * the generations its reloaders switch to. Each record change is a live update. A failure
 * here is logged and the server serves without reloads.
 */
async function startReloads(
  host: McpHost,
  events: ServerEvents,
  logger: Logger,
): Promise<CapabilityReloads | undefined> {
  try {
    return await startCapabilityReloads(host.skillgate, {
      logger,
      onRecord: (record) => events.publish({ type: "generation-changed", name: record.skill, id: record.id }),
    });
  } catch (error) {
    logger.warn("Lua skills will not reload while serving", {
      error: error instanceof Error ? error.name : "Error",
    });
    return undefined;
  }
}

/** The name a URL uses for the bound address: a wildcard bind is reached at the loopback address. */
function urlHost(bindHost: string): string {
  const bare = bindHost.replace(/^\[|\]$/g, "");
  if (bare === "0.0.0.0") return "127.0.0.1";
  if (bare === "::") return "[::1]";
  return bare.includes(":") ? `[${bare}]` : bare;
}

/** API requests in flight; {@link settled} waits for them to end. */
class InFlight implements RequestTracker {
  stopping = false;
  #count = 0;
  #waiters: Array<() => void> = [];

  begin(): void {
    this.#count += 1;
  }

  end(): void {
    this.#count -= 1;
    if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves when no request is in flight, or after `graceMs` (their connections are then closed). */
  settled(graceMs: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
