import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { McpHost } from "./host.js";

/** The largest request body read: 4 MiB (the SDK's own message limit). */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;

/** Limits of {@link McpHttpSessions}. */
export interface McpHttpSessionLimits {
  /** Sessions open at once (default 64); an initialisation past it is answered 503. */
  readonly maxSessions?: number;
  /** A session with no request open for this long is closed (default one hour). */
  readonly idleSessionMs?: number;
}

/** One HTTP session: its transport and how busy it is. */
interface HttpSession {
  readonly transport: StreamableHTTPServerTransport;
  /** Requests of this session still open (a GET stream stays open while the client listens). */
  open: number;
  lastSeen: number;
}

/**
 * The Streamable HTTP sessions of one McpHost: one session (and chat) per client
 * initialisation, found again by the `Mcp-Session-Id` header, closed when idle. It answers a
 * request that has already passed its server's checks (path, Host, Origin, token): both
 * `skillgate mcp --http` and `skillgate serve`'s `/mcp` hand their requests here, so the two
 * serve the same sessions, tools and approvals.
 */
export class McpHttpSessions {
  readonly #host: McpHost;
  readonly #maxSessions: number;
  readonly #idleMs: number;
  readonly #sessions = new Map<string, HttpSession>();
  readonly #sweep: NodeJS.Timeout;

  constructor(host: McpHost, limits: McpHttpSessionLimits = {}) {
    this.#host = host;
    this.#maxSessions = limits.maxSessions ?? 64;
    this.#idleMs = limits.idleSessionMs ?? 60 * 60 * 1000;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(this.#idleMs, 60_000));
    this.#sweep.unref();
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Answers one MCP request: a session's request, or an initialisation that opens a session. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const sessionHeader = request.headers["mcp-session-id"];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let body: unknown;
    if (request.method === "POST") {
      const read = await readJsonBody(request);
      if (!read.ok) return refuseJsonRpc(response, read.status, read.message, read.rpcCode);
      body = read.body;
    }
    if (sessionId !== undefined) {
      const session = this.#sessions.get(sessionId);
      if (session === undefined) return refuseJsonRpc(response, 404, "no such session; initialise a new one");
      this.#track(session, response);
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== "POST" || !isInitializeRequest(body))
      return refuseJsonRpc(response, 400, "no session id: send an initialize request first");
    if (this.#sessions.size >= this.#maxSessions)
      return refuseJsonRpc(
        response,
        503,
        `too many sessions (${this.#maxSessions}); close one and try again`,
      );
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: (closed) => this.#drop(closed),
    });
    const mcp = this.#host.openSession(id);
    const session: HttpSession = { transport, open: 0, lastSeen: Date.now() };
    this.#sessions.set(id, session);
    transport.onclose = () => void this.#drop(id);
    this.#track(session, response);
    await mcp.server.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialisation the transport refused leaves no session behind.
    if (transport.sessionId === undefined) await this.#drop(id);
  }

  /**
   * Interrupts every tool call still running in these sessions and waits until each has
   * ended: the client receives the `interrupted` result, and the audit log records it.
   */
  async interruptCalls(reason: string): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.#host.session(id)?.interruptCalls(reason)));
  }

  /** Closes every session (their chats stop) and the idle sweep. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.keys()].map((id) => this.#drop(id)));
  }

  #track(session: HttpSession, response: ServerResponse): void {
    session.open += 1;
    session.lastSeen = Date.now();
    response.on("close", () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
  }

  async #drop(id: string): Promise<void> {
    if (!this.#sessions.delete(id)) return;
    await this.#host.closeSession(id);
  }

  #closeIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions)
      if (session.open <= 0 && now - session.lastSeen > this.#idleMs) void this.#drop(id);
  }
}

/** Reads a JSON body of at most {@link MAX_HTTP_BODY_BYTES}. */
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

/** A JSON-RPC error answer with an HTTP status: how MCP endpoints refuse a request. */
export function refuseJsonRpc(
  response: ServerResponse,
  status: number,
  message: string,
  rpcCode = -32000,
): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: rpcCode, message }, id: null }));
}
