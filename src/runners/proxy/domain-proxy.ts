import { chmod } from "node:fs/promises";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { InvalidArgumentError, SkillgateError } from "../../core/errors.js";
import { type AddressBlock, createAddressBlock } from "./address-block.js";
import { handleRequest } from "./http-forward.js";
import { DEFAULT_PROXY_LIMITS, type ProxyLimits, ProxyState, type ProxyStats } from "./proxy-state.js";
import type { ProxyRefusal } from "./refusals.js";
import { type Resolve, systemResolve } from "./resolve.js";
import { rawResponse, refuseOnSocket } from "./respond.js";
import { createAllowList, parseAbsoluteUrl } from "./target.js";
import { handleConnect } from "./tunnel.js";
import { refusalForUnparsed } from "./unparsed.js";

/** Options of {@link startDomainProxy}. */
export interface DomainProxyOptions {
  /** Where to listen; must not exist yet. Unix sockets are limited to 107 bytes of path. */
  readonly socketPath: string;
  /** The skill's `skillgate.allowed-domains` (canonical `host` or `host:port`). Empty refuses everything. */
  readonly allowedDomains: readonly string[];
  /** Name resolution; the system resolver by default. Tests inject one to stay on loopback. */
  readonly resolve?: Resolve;
  /** Called once per refusal, for the audit log. Must not throw (a throw is ignored). */
  readonly onRefusal?: (refusal: ProxyRefusal) => void;
  /** Addresses never connected to; {@link createAddressBlock}'s default when omitted. */
  readonly blockedAddresses?: AddressBlock;
  readonly limits?: Partial<ProxyLimits>;
  /** File mode for the socket (e.g. `0o666` when the sandboxed user differs from the proxy's). */
  readonly socketMode?: number;
}

/** A running proxy. */
export interface DomainProxy {
  readonly socketPath: string;
  /** Counters, as a fresh snapshot on every read. */
  readonly stats: ProxyStats;
  /** Stops listening, cuts every client connection and tunnel, removes the socket file. Idempotent. */
  close(): Promise<void>;
}

/** Longest Unix socket path Linux accepts (`sun_path` is 108 bytes with the terminating NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;

/**
 * Starts the filtering HTTP/1.1 forward proxy a sandboxed skill reaches the network through.
 * It listens on a Unix socket (the sandbox has no network of its own and bridges the socket
 * to `127.0.0.1:3128` inside), forwards plain `http://` requests in absolute form and opens
 * `CONNECT host:port` tunnels, and only to hosts and ports on the allow-list whose every
 * resolved address is public. Every refusal is answered (`HOST:` text, a status, and the
 * reason in `x-skillgate-refusal`) and reported through `onRefusal`. Malformed input is
 * answered or dropped, never thrown.
 */
export async function startDomainProxy(options: DomainProxyOptions): Promise<DomainProxy> {
  if (Buffer.byteLength(options.socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new InvalidArgumentError(
      "socketPath",
      `a Unix socket path is at most ${MAX_SOCKET_PATH_BYTES} bytes: ${options.socketPath}`,
    );
  const limits: ProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...options.limits };
  const state = new ProxyState({
    allowList: createAllowList(options.allowedDomains),
    resolve: options.resolve ?? systemResolve,
    block: options.blockedAddresses ?? createAddressBlock(),
    limits,
    onRefusal: options.onRefusal,
  });

  const server = createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    // A slow upload is bounded by the idle timeout instead of a total time.
    requestTimeout: 0,
    keepAliveTimeout: Math.min(5_000, limits.idleTimeoutMs),
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    noDelay: true,
  });
  server.maxConnections = limits.maxClientConnections;
  server.setTimeout(limits.idleTimeoutMs, (socket: Socket) => socket.destroy());
  server.on("connection", (socket: Socket) => state.track(socket));
  server.on("request", (request, response) => handleRequest(state, request, response));
  server.on("connect", (request, socket: Socket, head: Buffer) =>
    handleConnect(state, request, socket, head),
  );
  server.on("upgrade", (request, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    const url = parseAbsoluteUrl(request.url ?? "");
    refuseOnSocket(state, socket, {
      host: url.ok ? url.authority : "",
      port: null,
      reason: "bad_request",
      kind: "http",
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      socket.end(rawResponse(408, "HOST: the request head took too long.\n"));
      return;
    }
    const refusal: ProxyRefusal =
      error.code === "HPE_HEADER_OVERFLOW"
        ? { host: "", port: null, reason: "header_too_large", kind: "unreadable" }
        : refusalForUnparsed((error as { rawPacket?: unknown }).rawPacket);
    refuseOnSocket(state, socket, refusal);
  });

  await listen(server, options.socketPath);
  if (options.socketMode !== undefined) await chmod(options.socketPath, options.socketMode);

  let closing: Promise<void> | undefined;
  return {
    socketPath: options.socketPath,
    get stats() {
      return state.stats();
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        state.destroyAll();
      });
      return closing;
    },
  };
}

function listen(server: ReturnType<typeof createServer>, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new SkillgateError("io_error", `the network proxy cannot listen on ${socketPath}: ${error.message}`, {
          path: socketPath,
          cause: error.code ?? "unknown",
        }),
      );
    };
    server.once("error", onError);
    server.listen(socketPath, () => {
      server.removeListener("error", onError);
      // Accept errors after start are per connection; the server itself must never throw.
      server.on("error", () => {});
      resolve();
    });
  });
}
