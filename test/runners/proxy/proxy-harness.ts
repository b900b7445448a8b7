import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
} from "node:http";
import { connect, createServer as createTcpServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { createAddressBlock } from "../../../src/runners/proxy/address-block.js";
import {
  type DomainProxy,
  type DomainProxyOptions,
  startDomainProxy,
} from "../../../src/runners/proxy/domain-proxy.js";
import type { ProxyRefusal } from "../../../src/runners/proxy/refusals.js";
import type { ResolvedAddress } from "../../../src/runners/proxy/resolve.js";

/** A local upstream server that counts the connections it accepted. */
export interface Upstream {
  readonly port: number;
  connections: number;
  close(): Promise<void>;
}

function track(server: Server, port: number): Upstream {
  const upstream: Upstream = {
    port,
    connections: 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server)
          (server as { closeAllConnections(): void }).closeAllConnections();
      }),
  };
  server.on("connection", () => {
    upstream.connections += 1;
  });
  return upstream;
}

async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** A TCP echo server on 127.0.0.1. */
export async function startEcho(): Promise<Upstream> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.pipe(socket);
  });
  const upstream = track(server, await listenLocal(server));
  const close = upstream.close;
  upstream.close = () => {
    for (const socket of sockets) socket.destroy();
    return close();
  };
  return upstream;
}

/** What the local HTTP server saw of the last request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP server on 127.0.0.1 that answers `hello from upstream` and records requests. */
export async function startHttp(): Promise<Upstream & { seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createHttpServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      response.writeHead(200, {
        "content-type": "text/plain",
        "x-upstream": "yes",
        "keep-alive": "timeout=99",
      });
      response.end("hello from upstream");
    });
  });
  return Object.assign(track(server, await listenLocal(server)), { seen });
}

/** A self-signed certificate for `allowed.test`, made with openssl; `undefined` when openssl is missing. */
export function selfSignedCertificate(): { key: string; cert: string } | undefined {
  const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=allowed.test",
        "-addext",
        "subjectAltName=DNS:allowed.test",
        "-keyout",
        join(folder, "key.pem"),
        "-out",
        join(folder, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return {
      key: readFileSync(join(folder, "key.pem"), "utf8"),
      cert: readFileSync(join(folder, "cert.pem"), "utf8"),
    };
  } catch {
    return undefined;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A TLS server on 127.0.0.1 that answers every connection with `tls hello` and closes. */
export async function startTls(credentials: { key: string; cert: string }): Promise<Upstream> {
  const server = createTlsServer(credentials, (socket) => {
    socket.on("error", () => socket.destroy());
    socket.end("tls hello");
  });
  return track(server, await listenLocal(server));
}

/** A proxy under test with its socket folder, its refusals and a cleanup. */
export interface TestProxy {
  readonly proxy: DomainProxy;
  readonly socketPath: string;
  readonly refusals: ProxyRefusal[];
  close(): Promise<void>;
}

/**
 * Starts a proxy on a socket in a fresh temp folder. `hosts` maps names to the addresses
 * the injected resolver returns (other names fail to resolve); `liftLoopback` lifts the
 * loopback and interface blocks so names can point at the test's own servers.
 */
export async function startTestProxy(
  options: {
    allowedDomains: readonly string[];
    hosts?: Readonly<Record<string, readonly string[]>>;
    liftLoopback?: boolean;
  } & Pick<DomainProxyOptions, "limits">,
): Promise<TestProxy> {
  const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
  const socketPath = join(folder, "proxy.sock");
  const refusals: ProxyRefusal[] = [];
  const hosts = options.hosts ?? {};
  const proxyOptions: DomainProxyOptions = {
    socketPath,
    allowedDomains: options.allowedDomains,
    resolve: async (host) => {
      const addresses = hosts[host];
      if (addresses === undefined) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return addresses.map(
        (address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }),
      );
    },
    onRefusal: (refusal) => refusals.push(refusal),
    ...(options.liftLoopback
      ? { blockedAddresses: createAddressBlock({ except: ["loopback", "interface"] }) }
      : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const proxy = await startDomainProxy(proxyOptions);
  return {
    proxy,
    socketPath,
    refusals,
    close: async () => {
      await proxy.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A parsed response head plus whatever followed it. */
export interface RawReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Writes `bytes` to the proxy socket and reads one response: a refusal (status, headers and
 * its Content-Length body) or a `200` to a CONNECT, in which case the open tunnel is returned.
 */
export function rawExchange(
  socketPath: string,
  bytes: string | Buffer,
): Promise<RawReply & { tunnel?: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = Buffer.alloc(0);
    let done = false;
    const finish = (reply: RawReply & { tunnel?: Socket }) => {
      done = true;
      socket.removeAllListeners("data");
      resolve(reply);
    };
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf("\r\n\r\n");
      if (end === -1 || done) return;
      const head = buffer.subarray(0, end).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? "")?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = buffer.subarray(end + 4);
      if (status === 200 && headers["content-length"] === undefined) {
        if (rest.length > 0) socket.unshift(rest);
        finish({ status, headers, body: "", tunnel: socket });
        return;
      }
      const length = Number(headers["content-length"] ?? 0);
      if (rest.length < length) return;
      finish({ status, headers, body: rest.subarray(0, length).toString("utf8") });
      socket.destroy();
    });
    socket.on("error", (error) => {
      if (!done) reject(error);
    });
    socket.on("close", () => {
      if (!done)
        reject(new Error(`connection closed before a reply: ${JSON.stringify(buffer.toString("latin1"))}`));
    });
    socket.write(bytes);
  });
}

/** Sends `text` through an open tunnel and reads back the same number of bytes. */
export function echoThrough(tunnel: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString("utf8");
      if (received.length >= text.length) {
        tunnel.removeListener("data", onData);
        resolve(received);
      }
    };
    tunnel.on("data", onData);
    tunnel.once("error", reject);
    tunnel.write(text);
  });
}

/** A plain HTTP request through the proxy with Node's own client (absolute-form URL over the socket). */
export function proxiedRequest(
  socketPath: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        socketPath,
        path: url,
        method: options.method ?? "GET",
        headers: options.headers ?? {},
        agent: false,
      },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}
