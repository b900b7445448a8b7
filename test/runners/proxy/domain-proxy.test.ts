import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { isSkillgateError } from "../../../src/core/errors.js";
import { startDomainProxy } from "../../../src/runners/proxy/domain-proxy.js";
import { eventually } from "../../helpers/eventually.js";
import { requireTools } from "../../helpers/required-tools.js";
import {
  echoThrough,
  proxiedRequest,
  rawExchange,
  selfSignedCertificate,
  startEcho,
  startHttp,
  startTestProxy,
  startTls,
  type TestProxy,
  type Upstream,
} from "./proxy-harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
function keep<Thing extends { close(): Promise<void> }>(thing: Thing): Thing {
  cleanups.push(() => thing.close());
  return thing;
}

const connectTo = (authority: string, host = authority) =>
  `CONNECT ${authority} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

describe("allowed hosts pass", () => {
  it("forwards a plain GET with end-to-end headers only, and Host from the URL", async () => {
    const upstream = keep(await startHttp());
    const { socketPath, refusals, proxy } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${upstream.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
      }),
    );
    const reply = await proxiedRequest(socketPath, `http://allowed.test:${upstream.port}/path?q=1`, {
      headers: {
        host: `allowed.test:${upstream.port}`,
        "proxy-authorization": "Basic c2VjcmV0",
        "x-custom": "kept",
        connection: "keep-alive, x-dropped",
        "x-dropped": "named by Connection",
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toBe("hello from upstream");
    expect(reply.headers["x-upstream"]).toBe("yes");
    // Hop-by-hop: the upstream's keep-alive is not relayed (the proxy may send its own).
    expect(reply.headers["keep-alive"]).not.toBe("timeout=99");
    const [seen] = upstream.seen;
    expect(seen?.url).toBe("/path?q=1");
    expect(seen?.headers.host).toBe(`allowed.test:${upstream.port}`);
    expect(seen?.headers["x-custom"]).toBe("kept");
    expect(seen?.headers["proxy-authorization"]).toBeUndefined();
    expect(seen?.headers["x-dropped"]).toBeUndefined();
    expect(seen?.headers.connection).toBe("close");
    expect(refusals).toEqual([]);
    expect(proxy.stats).toMatchObject({ requestsForwarded: 1, refused: 0 });
  });

  it("forwards a POST body, and canonicalises an upper-case name with a trailing dot", async () => {
    const upstream = keep(await startHttp());
    const { socketPath, refusals } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${upstream.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
      }),
    );
    const reply = await proxiedRequest(socketPath, `http://ALLOWED.Test.:${upstream.port}/post`, {
      method: "POST",
      headers: { host: `ALLOWED.Test.:${upstream.port}`, "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(reply.status).toBe(200);
    expect(upstream.seen[0]).toMatchObject({
      method: "POST",
      body: '{"a":1}',
      headers: { host: `allowed.test:${upstream.port}` },
    });
    expect(refusals).toEqual([]);
  });

  it.each([
    ["the listed name", "allowed.test"],
    ["a trailing dot", "allowed.test."],
    ["upper case", "ALLOWED.TEST"],
  ])("opens a CONNECT tunnel for %s", async (_label, name) => {
    const echo = keep(await startEcho());
    const { socketPath, refusals, proxy } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${echo.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
      }),
    );
    const reply = await rawExchange(socketPath, connectTo(`${name}:${echo.port}`));
    expect(reply.status).toBe(200);
    const tunnel = reply.tunnel;
    expect(await echoThrough(tunnel as NonNullable<typeof tunnel>, "ping through the tunnel")).toBe(
      "ping through the tunnel",
    );
    tunnel?.destroy();
    expect(refusals).toEqual([]);
    expect(echo.connections).toBe(1);
    expect(proxy.stats.tunnelsOpened).toBe(1);
  });

  it("carries TLS to a server with a self-signed certificate", async () => {
    requireTools("openssl");
    const credentials = selfSignedCertificate();
    if (credentials === undefined) throw new Error("openssl could not make a self-signed certificate");
    const server = keep(await startTls(credentials));
    const { socketPath, refusals } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${server.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
      }),
    );
    const reply = await rawExchange(socketPath, connectTo(`allowed.test:${server.port}`));
    expect(reply.status).toBe(200);
    const text = await new Promise<string>((resolve, reject) => {
      const secure = tlsConnect(
        { socket: reply.tunnel, servername: "allowed.test", ca: credentials.cert },
        () => {
          expect(secure.authorized).toBe(true);
        },
      );
      let received = "";
      secure.on("data", (chunk: Buffer) => {
        received += chunk.toString("utf8");
      });
      secure.on("end", () => resolve(received));
      secure.on("error", reject);
    });
    expect(text).toBe("tls hello");
    expect(refusals).toEqual([]);
  });
});

describe("resolved addresses are checked before any connection", () => {
  let echo: Upstream;
  const cases: Array<[string, readonly string[] | undefined, "blocked_address" | "resolve_failed"]> = [
    ["an allowed name resolving to 127.0.0.1 (default blocks)", ["127.0.0.1"], "blocked_address"],
    ["one public and one private address", ["203.0.113.7", "10.0.0.1"], "blocked_address"],
    ["a private address before a public one", ["192.168.1.10", "203.0.113.7"], "blocked_address"],
    ["the cloud metadata address", ["169.254.169.254"], "blocked_address"],
    ["the IPv6 metadata address", ["fd00:ec2::254"], "blocked_address"],
    ["IPv4-mapped loopback", ["::ffff:127.0.0.1"], "blocked_address"],
    ["IPv6 loopback", ["::1"], "blocked_address"],
    ["the unspecified address", ["0.0.0.0"], "blocked_address"],
    ["CGNAT", ["100.64.0.1"], "blocked_address"],
    ["link-local IPv6", ["fe80::1"], "blocked_address"],
    ["no answer", [], "resolve_failed"],
    ["an unknown name", undefined, "resolve_failed"],
  ];
  it.each(cases)("refuses %s", async (_label, addresses, reason) => {
    echo = keep(await startEcho());
    const { socketPath, refusals } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${echo.port}`],
        hosts: addresses === undefined ? {} : { "allowed.test": addresses },
      }),
    );
    const reply = await rawExchange(socketPath, connectTo(`allowed.test:${echo.port}`));
    expect(reply.status).toBe(403);
    expect(reply.headers["x-skillgate-refusal"]).toBe(reason);
    expect(reply.body).toMatch(/^HOST: /);
    expect(refusals).toEqual([{ host: "allowed.test", port: echo.port, reason, kind: "connect" }]);
    expect(echo.connections).toBe(0);
  });

  it("refuses loopback for plain HTTP too with the default blocks", async () => {
    const upstream = keep(await startHttp());
    const { socketPath, refusals } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${upstream.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
      }),
    );
    const reply = await proxiedRequest(socketPath, `http://allowed.test:${upstream.port}/`, {
      headers: { host: `allowed.test:${upstream.port}` },
    });
    expect(reply.status).toBe(403);
    expect(reply.body).toBe(
      `HOST: the skillgate network proxy refused allowed.test:${upstream.port} (blocked_address): the host resolves to a local, private or metadata address.\n`,
    );
    expect(refusals).toEqual([
      { host: "allowed.test", port: upstream.port, reason: "blocked_address", kind: "http" },
    ]);
    expect(upstream.connections).toBe(0);
  });

  it("answers 502 (not a refusal) when an allowed, checked address does not answer", async () => {
    const echo = await startEcho();
    const port = echo.port;
    await echo.close();
    const { socketPath, refusals, proxy } = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
      }),
    );
    const reply = await rawExchange(socketPath, connectTo(`allowed.test:${port}`));
    expect(reply.status).toBe(502);
    expect(reply.body).toMatch(/^HOST: /);
    expect(refusals).toEqual([]);
    expect(proxy.stats).toMatchObject({ upstreamFailures: 1, activeTunnels: 0 });
  });
});

describe("lifecycle", () => {
  it("close() cuts open tunnels, removes the socket file and may be called twice", async () => {
    const echo = keep(await startEcho());
    const test = await startTestProxy({
      allowedDomains: [`allowed.test:${echo.port}`],
      hosts: { "allowed.test": ["127.0.0.1"] },
      liftLoopback: true,
    });
    const reply = await rawExchange(test.socketPath, connectTo(`allowed.test:${echo.port}`));
    const tunnel = reply.tunnel as NonNullable<typeof reply.tunnel>;
    const closed = new Promise<void>((resolve) => tunnel.once("close", () => resolve()));
    await test.proxy.close();
    await closed;
    await test.proxy.close();
    expect(existsSync(test.socketPath)).toBe(false);
    await test.close();
  });

  it("sets the socket's file mode when asked", async () => {
    const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const proxy = keep(
      await startDomainProxy({
        socketPath: join(folder, "proxy.sock"),
        allowedDomains: [],
        socketMode: 0o666,
      }),
    );
    expect(statSync(proxy.socketPath).mode & 0o777).toBe(0o666);
    expect(statSync(proxy.socketPath).isSocket()).toBe(true);
  });

  it("closes an idle tunnel", async () => {
    const echo = keep(await startEcho());
    const test = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${echo.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
        limits: { idleTimeoutMs: 200 },
      }),
    );
    const reply = await rawExchange(test.socketPath, connectTo(`allowed.test:${echo.port}`));
    const tunnel = reply.tunnel as NonNullable<typeof reply.tunnel>;
    await new Promise<void>((resolve) => tunnel.once("close", () => resolve()));
    await eventually("every tunnel is closed", () => test.proxy.stats.activeTunnels === 0);
  });

  it("answers 408 to a client that never finishes its request head", async () => {
    const test = keep(await startTestProxy({ allowedDomains: [], limits: { headersTimeoutMs: 200 } }));
    const partial = connect(test.socketPath);
    partial.on("error", () => {});
    let answer = "";
    partial.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    partial.write("CONNECT allowed.test:443 HTTP/1.1\r\nHost: allo");
    await new Promise<void>((resolve) => partial.once("close", () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(test.refusals).toEqual([]);
  });

  it("keeps answering when onRefusal throws", async () => {
    const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const proxy = keep(
      await startDomainProxy({
        socketPath: join(folder, "proxy.sock"),
        allowedDomains: [],
        onRefusal: () => {
          throw new Error("audit sink down");
        },
      }),
    );
    for (let round = 0; round < 2; round += 1) {
      const reply = await rawExchange(proxy.socketPath, connectTo("evil.test:443"));
      expect(reply.headers["x-skillgate-refusal"]).toBe("not_allowed");
    }
    expect(proxy.stats.refusedByReason).toEqual({ not_allowed: 2 });
  });

  it("refuses a socket path longer than a Unix socket allows, creating nothing", async () => {
    const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const socketPath = join(folder, "s".repeat(120));
    const error = await startDomainProxy({ socketPath, allowedDomains: [] }).catch(
      (caught: unknown) => caught,
    );
    expect(isSkillgateError(error, "invalid_argument")).toBe(true);
    expect(existsSync(socketPath)).toBe(false);
  });

  it("refuses an allow-list entry that is not a host name, creating nothing", async () => {
    const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const socketPath = join(folder, "proxy.sock");
    const error = await startDomainProxy({ socketPath, allowedDomains: ["127.0.0.1"] }).catch(
      (caught: unknown) => caught,
    );
    expect(isSkillgateError(error, "invalid_argument")).toBe(true);
    expect(existsSync(socketPath)).toBe(false);
  });

  it("does not replace an existing file at the socket path (io_error)", async () => {
    const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const socketPath = join(folder, "proxy.sock");
    writeFileSync(socketPath, "not a socket");
    const error = await startDomainProxy({ socketPath, allowedDomains: [] }).catch(
      (caught: unknown) => caught,
    );
    expect(isSkillgateError(error, "io_error")).toBe(true);
    expect(readFileSync(socketPath, "utf8")).toBe("not a socket");
  });
});

describe("the connection cap", () => {
  it("refuses 100 concurrent CONNECTs beyond the cap cleanly and keeps the open tunnels working", async () => {
    const echo = keep(await startEcho());
    const test: TestProxy = keep(
      await startTestProxy({
        allowedDomains: [`allowed.test:${echo.port}`],
        hosts: { "allowed.test": ["127.0.0.1"] },
        liftLoopback: true,
        limits: { maxTunnels: 8 },
      }),
    );
    const request = connectTo(`allowed.test:${echo.port}`);
    const open = await Promise.all(Array.from({ length: 8 }, () => rawExchange(test.socketPath, request)));
    expect(open.map((reply) => reply.status)).toEqual(new Array(8).fill(200));

    const beyond = await Promise.all(
      Array.from({ length: 100 }, () => rawExchange(test.socketPath, request)),
    );
    expect(beyond.map((reply) => reply.status)).toEqual(new Array(100).fill(503));
    expect(new Set(beyond.map((reply) => reply.headers["x-skillgate-refusal"]))).toEqual(
      new Set(["too_many_tunnels"]),
    );
    expect(test.refusals).toHaveLength(100);
    expect(test.refusals[0]).toEqual({
      host: "allowed.test",
      port: echo.port,
      reason: "too_many_tunnels",
      kind: "connect",
    });
    expect(echo.connections).toBe(8);

    for (const [index, reply] of open.entries()) {
      const tunnel = reply.tunnel as NonNullable<typeof reply.tunnel>;
      expect(await echoThrough(tunnel, `still open ${index}`)).toBe(`still open ${index}`);
    }
    open[0]?.tunnel?.destroy();
    await eventually("seven tunnels are open", () => test.proxy.stats.activeTunnels === 7);
    const again = await rawExchange(test.socketPath, request);
    expect(again.status).toBe(200);
    for (const reply of [...open, again]) reply.tunnel?.destroy();
    await eventually("every tunnel is closed", () => test.proxy.stats.activeTunnels === 0);
  });
});
