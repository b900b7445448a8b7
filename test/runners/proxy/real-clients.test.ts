import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../helpers/eventually.js";
import { requireTools } from "../../helpers/required-tools.js";
import { selfSignedCertificate, startHttp, startTestProxy, type TestProxy } from "./proxy-harness.js";

// The sandbox reaches the proxy the way this test does: socat listens on a TCP port and
// forwards each connection to the proxy's Unix socket; the client only knows `http_proxy`.
// Asynchronous child processes only: the proxy runs in this process and must keep serving.
const run = promisify(execFile);

// The suite needs socat (the bridge), curl (the client) and openssl (the certificate); it fails without them.
requireTools("socat", "curl", "openssl");
const certificate = selfSignedCertificate();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForListener(port: number, bridge: ChildProcess): Promise<void> {
  await eventually(`socat listens on port ${port}`, async () => {
    if (bridge.exitCode !== null) throw new Error(`socat exited with ${bridge.exitCode}`);
    return await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
  });
}

describe("real clients through a socat bridge", () => {
  let upstream: Awaited<ReturnType<typeof startHttp>>;
  let secure: ReturnType<typeof createHttpsServer>;
  let securePort: number;
  let test: TestProxy;
  let bridge: ChildProcess;
  let bridgePort: number;
  let folder: string;
  let caFile: string;

  beforeAll(async () => {
    const credentials = certificate as NonNullable<typeof certificate>;
    folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-clients-"));
    caFile = join(folder, "ca.pem");
    writeFileSync(caFile, credentials.cert);
    upstream = await startHttp();
    secure = createHttpsServer(credentials, (_request, response) => response.end("hello over tls"));
    await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve));
    securePort = (secure.address() as { port: number }).port;
    test = await startTestProxy({
      allowedDomains: [`allowed.test:${upstream.port}`, `allowed.test:${securePort}`],
      hosts: { "allowed.test": ["127.0.0.1"], "evil.test": ["127.0.0.1"] },
      liftLoopback: true,
    });
    bridgePort = await freePort();
    bridge = spawn(
      "socat",
      [`TCP-LISTEN:${bridgePort},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${test.socketPath}`],
      { stdio: "ignore" },
    );
    await waitForListener(bridgePort, bridge);
  });

  afterAll(async () => {
    bridge?.kill("SIGTERM");
    await test?.close();
    await upstream?.close();
    secure?.closeAllConnections();
    await new Promise<void>((resolve) => (secure ? secure.close(() => resolve()) : resolve()));
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const curl = (...args: string[]) =>
    run("curl", [
      "--silent",
      "--show-error",
      "--max-time",
      "30",
      "--proxy",
      `http://127.0.0.1:${bridgePort}`,
      ...args,
    ]).then(
      (result) => ({ code: 0, stdout: result.stdout, stderr: result.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );

  it("curl fetches an allowed http URL", async () => {
    const result = await curl(`http://allowed.test:${upstream.port}/from-curl`);
    expect(result).toMatchObject({ code: 0, stdout: "hello from upstream" });
    expect(upstream.seen.at(-1)?.url).toBe("/from-curl");
  });

  it("curl fetches an allowed https URL through CONNECT and verifies the certificate", async () => {
    const result = await curl("--cacert", caFile, `https://allowed.test:${securePort}/`);
    expect(result).toMatchObject({ code: 0, stdout: "hello over tls" });
  });

  it("curl gets the HOST: refusal for an unlisted http URL", async () => {
    const before = test.refusals.length;
    const result = await curl("--write-out", "%{http_code}", `http://evil.test:${upstream.port}/`);
    expect(result.stdout).toBe(
      `HOST: the skillgate network proxy refused evil.test:${upstream.port} (not_allowed): this host and port are not in the skill's skillgate.allowed-domains.\n403`,
    );
    expect(test.refusals.slice(before)).toEqual([
      { host: "evil.test", port: upstream.port, reason: "not_allowed", kind: "http" },
    ]);
  });

  it("curl fails CONNECT to an unlisted https URL with the proxy's 403", async () => {
    const before = test.refusals.length;
    const result = await curl("--cacert", caFile, `https://evil.test:${securePort}/`);
    // 56: "Received HTTP code 403 from proxy after CONNECT".
    expect(result.code).toBe(56);
    expect(result.stderr).toContain("403");
    expect(test.refusals.slice(before)).toEqual([
      { host: "evil.test", port: securePort, reason: "not_allowed", kind: "connect" },
    ]);
  });
});
