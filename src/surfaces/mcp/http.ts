import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidArgumentError } from "../../core/errors.js";
import { listenError } from "../../core/listen-error.js";
import type { McpHost } from "./host.js";
import { McpHttpSessions, refuseJsonRpc } from "./http-sessions.js";

export { MAX_HTTP_BODY_BYTES } from "./http-sessions.js";

/** The path MCP is served at. */
export const MCP_HTTP_PATH = "/mcp";

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
  const sessions = new McpHttpSessions(host, {
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    ...(options.idleSessionMs !== undefined ? { idleSessionMs: options.idleSessionMs } : {}),
  });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    // HTTP/1.0 may leave Host out, and Node lets an empty one through: neither says which
    // server was meant, so neither is answered (docs/mcp.md).
    const hostHeader = request.headers.host;
    if (hostHeader === undefined || hostHeader.trim() === "")
      return refuseJsonRpc(response, 400, "the request has no Host header");
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_HTTP_PATH)
      return refuseJsonRpc(response, 404, `not found; MCP is served at ${MCP_HTTP_PATH}`);
    if (loopback && !sameMachineRequest(request))
      return refuseJsonRpc(response, 403, "the Host or Origin header names another host");
    if (token !== undefined && !carriesToken(request, token)) {
      response.setHeader("WWW-Authenticate", 'Bearer realm="skillgate"');
      return refuseJsonRpc(response, 401, "a bearer token is required (Authorization: Bearer TOKEN)");
    }
    await sessions.handle(request, response);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        refuseJsonRpc(response, 500, error instanceof Error ? error.message : String(error));
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => {
      void sessions.close();
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
      await sessions.close();
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
  return match !== null && tokensMatch(match[1] as string, token);
}

/** True when `given` is `expected`, compared by SHA-256 digest in constant time. */
function tokensMatch(given: string, expected: string): boolean {
  return timingSafeEqual(
    createHash("sha256").update(given).digest(),
    createHash("sha256").update(expected).digest(),
  );
}
