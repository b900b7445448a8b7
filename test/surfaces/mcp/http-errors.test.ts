import { connect, createServer as createNetServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isSkillgateError } from "../../../src/core/errors.js";
import { ListenError, listenError } from "../../../src/core/listen-error.js";
import { serveHttp } from "../../../src/surfaces/mcp/http.js";
import { cliSandbox, hasStackTrace } from "../cli/harness.js";
import { mcpTree, openHost } from "./harness.js";

/** What a person can get wrong when serving MCP over HTTP, and requests with no Host. */

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close().catch(() => {});
});

/** A port some other program holds, for as long as the test runs. */
async function busyPort(): Promise<number> {
  const holder: Server = createNetServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  closing.push(() => new Promise((resolve) => holder.close(resolve)));
  const address = holder.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Sends `head` as the whole request on a raw socket and returns the status line. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("end", () => resolve(text.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

describe("requests without a Host", () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  const post = (hostLine: string, version = "1.1") =>
    `POST /mcp HTTP/${version}\r\n${hostLine}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(initialize)}\r\nConnection: close\r\n\r\n${initialize}`;

  it.each([
    ["HTTP/1.1 with no Host", post("")],
    ["HTTP/1.0 with no Host", post("", "1.0")],
    ["an empty Host", post("Host: \r\n")],
    ["a Host of blanks", post("Host:    \r\n")],
  ])("%s is answered 400, on loopback and elsewhere, and opens no session", async (_label, head) => {
    for (const options of [{}, { host: "0.0.0.0", token: "t" }]) {
      const host = await openHost(mcpTree());
      const server = await serveHttp(host, { port: 0, ...options });
      closing.push(() => server.close());
      const withToken =
        "token" in options ? head.replace("Content-Type", "Authorization: Bearer t\r\nContent-Type") : head;
      expect(await rawRequest(server.port, withToken)).toMatch(/^HTTP\/1\.[01] 400 /);
      expect(host.sessionCount).toBe(0);
    }
  });

  it("the same request with a Host gets past the check (control)", async () => {
    const host = await openHost(mcpTree());
    const server = await serveHttp(host, { port: 0 });
    closing.push(() => server.close());
    expect(await rawRequest(server.port, post(`Host: 127.0.0.1:${server.port}\r\n`))).toMatch(
      /^HTTP\/1\.1 200 /,
    );
  });
});

describe("errors a person can cause when listening", () => {
  it("a busy port is port_in_use with a hint, from serveHttp", async () => {
    const port = await busyPort();
    const host = await openHost(mcpTree());
    const error = await serveHttp(host, { port }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ListenError);
    expect(isSkillgateError(error) && error.code).toBe("port_in_use");
    expect((error as ListenError).data).toMatchObject({ host: "127.0.0.1", port, systemCode: "EADDRINUSE" });
    expect((error as Error).message).toContain("--port");
  });

  it("a host that is not this machine's is host_not_bindable", async () => {
    const host = await openHost(mcpTree());
    for (const bindHost of ["203.0.113.7", "no-such-host.invalid"]) {
      const error = await serveHttp(host, { host: bindHost, port: 0, token: "t" }).catch(
        (caught: unknown) => caught,
      );
      expect(isSkillgateError(error) && error.code, bindHost).toBe("host_not_bindable");
      expect((error as Error).message).toContain("--host");
    }
  });

  it.each([
    [{ code: "EADDRINUSE" }, 3917, "port_in_use"],
    [{ code: "EACCES" }, 80, "port_not_permitted"],
    [{ code: "EPERM" }, 443, "port_not_permitted"],
    [{ code: "EADDRNOTAVAIL" }, 3917, "host_not_bindable"],
    [{ code: "ENOTFOUND" }, 3917, "host_not_bindable"],
    [{ code: "EAI_AGAIN" }, 3917, "host_not_bindable"],
  ])("the system's %j on port %i is %s", (systemError, port, code) => {
    const mapped = listenError(Object.assign(new Error("listen failed"), systemError), "127.0.0.1", port);
    expect(isSkillgateError(mapped) && mapped.code).toBe(code);
    if (code === "port_not_permitted") expect((mapped as Error).message).toContain("below 1024");
  });

  it("an error nobody could fix by hand stays itself", () => {
    const other = Object.assign(new Error("strange"), { code: "EMFILE" });
    expect(listenError(other, "127.0.0.1", 1)).toBe(other);
  });

  it("skillgate mcp --http on a busy port: one line with the code and the hint, exit 1, no stack", async () => {
    const port = await busyPort();
    const sandbox = cliSandbox();
    const result = await sandbox.run(["mcp", "--http", "--port", String(port)]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^skillgate: cannot listen on 127\.0\.0\.1:\d+: another program is using the port: .*--port N.* \[port_in_use\]\n$/,
    );
    expect(result.err).not.toContain("unexpected error");
    expect(hasStackTrace(result.err)).toBe(false);
  });
});
