import { chmodSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type SandboxProxyProvider, SandboxRunner } from "../../src/runners/sandbox/index.js";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import { localClient, localWorker, queuedSkill, queueRequest, queueTree } from "./helpers.js";

/**
 * A queued script's network, through the worker's sandbox: `none` reaches nothing; `bridge`
 * reaches only its allowed domains, through the proxy the worker opens for exactly those
 * domains (here a stand-in on a Unix socket that records what it is asked), never directly.
 */

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A stand-in proxy: records each request's first line and the domains it was opened for. */
async function recordingProxy(): Promise<{
  provider: SandboxProxyProvider;
  lines: string[];
  opened: string[][];
}> {
  const folder = mkdtempSync(join(tmpdir(), "skillgate-queue-proxy-"));
  chmodSync(folder, 0o711);
  const socketPath = join(folder, "proxy.sock");
  const lines: string[] = [];
  const opened: string[][] = [];
  const server = createServer((socket) => {
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      lines.push(head.slice(0, head.indexOf("\r\n")));
      socket.end("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nproxied");
    });
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  chmodSync(socketPath, 0o666);
  return {
    lines,
    opened,
    provider: {
      open: async ({ allowedDomains }) => {
        opened.push([...allowedDomains]);
        return { socketPath, release: () => undefined };
      },
    },
  };
}

const FETCH = `
import errno, json, os, socket, urllib.request
args = json.loads(os.environ["SKILLGATE_SKILL_ARGS"])
outcome = {}
try:
    with urllib.request.urlopen(args["url"], timeout=10) as response:
        outcome["body"] = response.read().decode()
except Exception as error:
    outcome["body"] = type(error).__name__
try:
    socket.create_connection(("1.1.1.1", 80), timeout=3).close()
    outcome["direct"] = "ok"
except OSError as error:
    outcome["direct"] = errno.errorcode.get(error.errno, str(error.errno))
print(json.dumps(outcome))
`;

describe("a queued script's network", () => {
  it("bridge goes through a proxy opened for exactly its allowed domains, never directly; none reaches nothing", async () => {
    requireBubblewrap();
    const proxy = await recordingProxy();
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "fetcher", { "scripts/fetch.py": FETCH });
    const runner = new SandboxRunner({ proxy: proxy.provider, prestart: false });
    const client = localClient(data);
    await localWorker(data, { runner });
    try {
      const bridged = queueRequest("fetcher", hash, "scripts/fetch.py", {
        arguments: { url: "http://allowed.test/report" },
        network: "bridge",
        allowedDomains: ["allowed.test"],
      });
      await client.submit(bridged);
      const bridgedAnswer = await client.waitFor(bridged.requestId);
      expect(bridgedAnswer.status, bridgedAnswer.message ?? bridgedAnswer.stderr).toBe("ok");
      const bridgedOutcome = JSON.parse(bridgedAnswer.stdout) as { body: string; direct: string };
      expect(bridgedOutcome.body).toBe("proxied");
      expect(bridgedOutcome.direct).not.toBe("ok");
      expect(proxy.opened).toEqual([["allowed.test"]]);
      expect(proxy.lines).toEqual(["GET http://allowed.test/report HTTP/1.1"]);

      // The same domains on a request with network none: the worker opens no proxy at all.
      const closed = queueRequest("fetcher", hash, "scripts/fetch.py", {
        arguments: { url: "http://allowed.test/report" },
        network: "none",
        allowedDomains: ["allowed.test"],
      });
      await client.submit(closed);
      const closedAnswer = await client.waitFor(closed.requestId);
      expect(closedAnswer.status, closedAnswer.message ?? closedAnswer.stderr).toBe("ok");
      const closedOutcome = JSON.parse(closedAnswer.stdout) as { body: string; direct: string };
      expect(closedOutcome.body).not.toBe("proxied");
      expect(closedOutcome.direct).not.toBe("ok");
      expect(proxy.opened).toHaveLength(1);
      expect(proxy.lines).toHaveLength(1);
    } finally {
      await runner.close();
    }
  });
});
