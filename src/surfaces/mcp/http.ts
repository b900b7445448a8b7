import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InvalidArgumentError } from "../../core/errors.js";
import { listenError } from "../../core/listen-error.js";
import type { McpHost } from "./host.js";

/** The path MCP is served at. */
export const MCP_HTTP_PATH = "/mcp";

/** The largest request body read: 4 MiB (the SDK's own message limit). */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;

/** Options of {@link serveHttp}. */
export interface McpHttpOptions {
  /** The address to bind (default `127.0.0.1`). Any other than a loopback address needs a token. */
  readonly host?: string;
  /** The port (default 0: any free port; see `port` on the result). */
  readonly port?: number;
  /** The bearer token every request must carry (`Authorization: Bearer TOKEN`). */
  readonly token?: string;
  /** Sessions open at once (default 64); an initialisation past it is answered 503. */
  readonly maxSessions?: number;
  /** A session with no request open for this long is closed (default one hour). */
  readonly idleSessionMs?: number;
}

/** A running Streamable HTTP server. */
export interface McpHttpServer {
  /** `http://HOST:PORT/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Closes every HTTP session and stops listening. */
  close(): Promise<void>;
}

/** One HTTP session: its transport and how busy it is. */
interface HttpSession {
  readonly transport: StreamableHTTPServerTransport;
  /** Requests of this session still open (a GET stream stays open while the client listens). */
  open: number;
  lastSeen: number;
}

/** True for a host name or address that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * Serves MCP over Streamable HTTP at `/mcp`, one session (and chat) per client
 * initialisation. Bound to 127.0.0.1 by default; binding elsewhere without a token is
 * refused (`invalid_argument`), because anyone who can reach the port could then call the
 * tools. With a token, every request without `Authorization: Bearer TOKEN` is answered 401.
 * On a loopback address, requests whose `Host` or `Origin` names another host are answered
 * 403 (a web page cannot reach the server through DNS rebinding). A request with no `Host`
 * or an empty one is answered 400 on any address. A port in use, a port the system refuses
 * and a host that is not this machine's are `ListenError`s (`port_in_use`,
 * `port_not_permitted`, `host_not_bindable`) with a hint.
 */
export async function serveHttp(host: McpHost, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const bindHost = options.host ?? "127.0.0.1";
  const token = options.token !== undefined && options.token !== "" ? options.token : undefined;
  const loopback = isLoopbackHost(bindHost);
  if (!loopback && token === undefined)
    throw new InvalidArgumentError(
      "token",
      `refusing to serve MCP on ${bindHost} without a token: give --token or SKILLGATE_MCP_TOKEN, or bind to 127.0.0.1`,
    );
  const maxSessions = options.maxSessions ?? 64;
  const idleMs = options.idleSessionMs ?? 60 * 60 * 1000;
  const sessions = new Map<string, HttpSession>();

  const dropSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    await host.closeSession(id);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    // HTTP/1.0 may leave Host out, and Node lets an empty one through: neither says which
    // server was meant, so neither is answered (docs/mcp.md).
    const hostHeader = request.headers.host;
    if (hostHeader === undefined || hostHeader.trim() === "")
      return refuse(response, 400, "the request has no Host header");
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_HTTP_PATH)
      return refuse(response, 404, `not found; MCP is served at ${MCP_HTTP_PATH}`);
    if (loopback && !sameMachineRequest(request))
      return refuse(response, 403, "the Host or Origin header names another host");
    if (token !== undefined && !carriesToken(request, token)) {
      response.setHeader("WWW-Authenticate", 'Bearer realm="skillgate"');
      return refuse(response, 401, "a bearer token is required (Authorization: Bearer TOKEN)");
    }
    const sessionHeader = request.headers["mcp-session-id"];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let body: unknown;
    if (request.method === "POST") {
      const read = await readJsonBody(request);
      if (!read.ok) return refuse(response, read.status, read.message, read.rpcCode);
      body = read.body;
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) return refuse(response, 404, "no such session; initialise a new one");
      session.open += 1;
      session.lastSeen = Date.now();
      response.on("close", () => {
        session.open -= 1;
        session.lastSeen = Date.now();
      });
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== "POST" || !isInitializeRequest(body))
      return refuse(response, 400, "no session id: send an initialize request first");
    if (sessions.size >= maxSessions)
      return refuse(response, 503, `too many sessions (${maxSessions}); close one and try again`);
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: (closed) => dropSession(closed),
    });
    const mcp = host.openSession(id);
    const session: HttpSession = { transport, open: 1, lastSeen: Date.now() };
    sessions.set(id, session);
    transport.onclose = () => void dropSession(id);
    response.on("close", () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
    await mcp.server.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialisation the transport refused leaves no session behind.
    if (transport.sessionId === undefined) await dropSession(id);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        refuse(response, 500, error instanceof Error ? error.message : String(error));
      else response.end();
    });
  });
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions)
        if (session.open <= 0 && now - session.lastSeen > idleMs) void dropSession(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => {
      clearInterval(sweep);
      reject(listenError(error, bindHost, options.port ?? 0));
    });
    server.listen(options.port ?? 0, bindHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = bindHost.includes(":") ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${urlHost}:${port}${MCP_HTTP_PATH}`,
    port,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map((id) => dropSession(id)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request's Host (and Origin, when sent) name this machine. */
function sameMachineRequest(request: IncomingMessage): boolean {
  const hostHeader = request.headers.host;
  if (hostHeader === undefined || !isLoopbackHost(hostName(hostHeader))) return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** `host:port` or `[v6]:port` without the port. */
function hostName(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.replace(/:\d+$/, "");
}

/** Compares digests, so the comparison takes the same time whatever the token's length. */
function carriesToken(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (match === null) return false;
  const given = createHash("sha256")
    .update(match[1] as string)
    .digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected);
}

async function readJsonBody(
  request: IncomingMessage,
): Promise<{ ok: true; body: unknown } | { ok: false; status: number; message: string; rpcCode: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_HTTP_BODY_BYTES)
      return {
        ok: false,
        status: 413,
        message: `the body is over ${MAX_HTTP_BODY_BYTES} bytes`,
        rpcCode: -32600,
      };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    return { ok: false, status: 400, message: "the body is not JSON", rpcCode: -32700 };
  }
}

/** A JSON-RPC error answer with an HTTP status. */
function refuse(response: ServerResponse, status: number, message: string, rpcCode = -32000): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: rpcCode, message }, id: null }));
}
