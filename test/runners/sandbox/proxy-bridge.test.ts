import { chmodSync, existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RUN_LIMITS } from "../../../src/runners/contract.js";
import { type ProxyRefusal, startDomainProxy } from "../../../src/runners/proxy/index.js";
import { domainProxyProvider, SandboxRunner } from "../../../src/runners/sandbox/sandbox-runner.js";
import {
  expectContained,
  expectStatus,
  hashOf,
  lastJson,
  poolReady,
  requireBubblewrap,
  runScript,
  snapshotOf,
  temporaryFolder,
} from "./harness.js";

/**
 * The sandbox's only way out when a skill lists allowed domains: HTTP through the proxy's
 * Unix socket, bridged to 127.0.0.1:3128 inside by socat. The filtering is the proxy's
 * (tested in test/runners/proxy); here, that the bridge carries requests to whatever listens
 * on the socket, that nothing else opens, and that the real proxy's refusals reach the script.
 */

beforeAll(() => requireBubblewrap());

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A stand-in proxy on a Unix socket: records each request head and answers "proxied". */
async function fakeProxy(folderMode = 0o711): Promise<{ socketPath: string; heads: string[] }> {
  const folder = temporaryFolder("skillgate-fake-proxy-", folderMode);
  const socketPath = join(folder, "proxy.sock");
  const heads: string[] = [];
  const server = createServer((socket) => {
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      heads.push(head.slice(0, head.indexOf("\r\n\r\n")));
      socket.end("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nproxied");
    });
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  chmodSync(socketPath, 0o666);
  return { socketPath, heads };
}

const FETCH = `
import errno, json, os, socket, sys, urllib.request, urllib.error
url = json.load(sys.stdin)["url"]
try:
    with urllib.request.urlopen(url, timeout=10) as response:
        outcome = {"status": response.status, "body": response.read().decode()}
except urllib.error.HTTPError as error:
    outcome = {"status": error.code, "body": error.read().decode()}
try:
    socket.create_connection(("1.1.1.1", 80), timeout=3).close()
    outcome["direct"] = "ok"
except OSError as error:
    outcome["direct"] = errno.errorcode.get(error.errno)
outcome["proxy"] = [os.environ.get(name) for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY")]
print(json.dumps(outcome))
`;

describe("the proxy bridge", () => {
  it("carries HTTP to the proxy's socket and nowhere else", async () => {
    const proxy = await fakeProxy();
    const snapshot = snapshotOf({ "scripts/fetch.py": FETCH });
    const before = hashOf(snapshot);
    const result = await runScript(snapshot, "scripts/fetch.py", {
      arguments: { url: "http://allowed.test/path?q=1" },
      network: { mode: "proxy", socketPath: proxy.socketPath, allowedDomains: ["allowed.test"] },
    });
    expectStatus(result, "ok");
    expect(lastJson(result)).toEqual({
      status: 200,
      body: "proxied",
      direct: "ENETUNREACH",
      proxy: [
        "http://127.0.0.1:3128",
        "http://127.0.0.1:3128",
        "http://127.0.0.1:3128",
        "http://127.0.0.1:3128",
        "",
      ],
    });
    expect(proxy.heads[0]?.split("\r\n")[0]).toBe("GET http://allowed.test/path?q=1 HTTP/1.1");
    await expectContained(result, snapshot, before);
  });

  it("reaches a socket behind a folder closed to the sandbox user (through the portal, as root), also from a sandbox started ahead", async () => {
    const proxy = await fakeProxy(0o700);
    const snapshot = snapshotOf({ "scripts/fetch.py": FETCH });
    const before = hashOf(snapshot);
    const fetch = () =>
      runScript(snapshot, "scripts/fetch.py", {
        arguments: { url: "http://allowed.test/" },
        network: { mode: "proxy", socketPath: proxy.socketPath, allowedDomains: ["allowed.test"] },
      });
    const result = await fetch();
    if (process.getuid?.() !== 0) {
      expect(result.code).toBe("proxy_unavailable");
      return;
    }
    await poolReady();
    const again = await fetch();
    for (const run of [result, again]) {
      expectStatus(run, "ok");
      expect(run.sandbox?.portal).toBe(true);
      expect(lastJson(run).body).toBe("proxied");
      await expectContained(run, snapshot, before);
    }
    expect(again.sandbox?.prestarted).toBe(true);
  });

  it("refuses a socket the sandbox user may not connect to", async () => {
    if (process.getuid?.() !== 0) return;
    const proxy = await fakeProxy();
    chmodSync(proxy.socketPath, 0o600);
    const result = await runScript(snapshotOf({ "scripts/fetch.py": FETCH }), "scripts/fetch.py", {
      network: { mode: "proxy", socketPath: proxy.socketPath, allowedDomains: ["allowed.test"] },
    });
    expect(result.code).toBe("proxy_unavailable");
    expect(result.message).toContain("not writable by the sandbox user");
    expect(proxy.heads).toEqual([]);
  });

  it("the real domain proxy's refusal reaches the script, and the proxy records it", async () => {
    const refusals: ProxyRefusal[] = [];
    const folder = temporaryFolder("skillgate-domain-proxy-", 0o711);
    const proxy = await startDomainProxy({
      socketPath: join(folder, "proxy.sock"),
      allowedDomains: ["allowed.test"],
      socketMode: 0o666,
      onRefusal: (refusal) => refusals.push(refusal),
    });
    try {
      const result = await runScript(snapshotOf({ "scripts/fetch.py": FETCH }), "scripts/fetch.py", {
        arguments: { url: "http://evil.test/steal" },
        network: { mode: "proxy", socketPath: proxy.socketPath, allowedDomains: ["allowed.test"] },
      });
      expectStatus(result, "ok");
      const outcome = lastJson(result);
      expect(outcome.status).toBe(403);
      expect(String(outcome.body)).toMatch(/^HOST: /);
      expect(refusals.map((refusal) => [refusal.host, refusal.reason])).toEqual([
        ["evil.test", "not_allowed"],
      ]);
    } finally {
      await proxy.close();
    }
  });
});

describe("SandboxRunner with allowed domains", () => {
  it("opens a proxy for the run, refuses unlisted hosts through it, and stops it afterwards", async () => {
    const refusals: string[] = [];
    const sockets: string[] = [];
    const provider = domainProxyProvider({
      onRefusal: (skill, refusal) => refusals.push(`${skill}:${refusal.host}`),
    });
    const runner = new SandboxRunner({
      proxy: {
        async open(request) {
          const lease = await provider.open(request);
          sockets.push(lease.socketPath);
          return lease;
        },
      },
    });
    const snapshot = snapshotOf({ "scripts/fetch.py": FETCH });
    const result = await runner.run({
      skill: "fetcher",
      hash: hashOf(snapshot),
      folder: snapshot,
      execution: "sandbox",
      script: "scripts/fetch.py",
      language: "python",
      arguments: { url: "http://unlisted.test/" },
      limits: DEFAULT_RUN_LIMITS,
      allowedDomains: ["allowed.test"],
      snapshot: { folder: snapshot, hash: hashOf(snapshot), reused: true },
    });
    expectStatus(result, "ok");
    expect(lastJson(result).status).toBe(403);
    expect(refusals).toEqual(["fetcher:unlisted.test"]);
    expect(sockets).toHaveLength(1);
    expect(existsSync(sockets[0] ?? "")).toBe(false);
  });
});
