import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isSkillgateError } from "../../../src/core/errors.js";
import { type McpHttpServer, serveHttp } from "../../../src/surfaces/mcp/http.js";
import { eventually } from "../../helpers/eventually.js";
import { childEnvironment, cliMain, ensureBuilt } from "./built-cli.js";
import { mcpTree, openHost, resultText } from "./harness.js";

/** `skillgate mcp --http`: Streamable HTTP on a real port, real SDK clients, tokens and host checks. */

beforeAll(() => ensureBuilt());

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close().catch(() => {});
});

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function served(options: Parameters<typeof serveHttp>[1] = {}) {
  const tree = mcpTree();
  const host = await openHost(tree);
  const server = await serveHttp(host, { port: 0, ...options });
  closing.push(() => server.close());
  return { tree, host, server };
}

async function httpClient(
  server: McpHttpServer,
  options: { token?: string; elicit?: "once" } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    ...(options.token !== undefined
      ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } }
      : {}),
  });
  const client = new Client(
    { name: "skillgate-http-test", version: "1.0.0" },
    { capabilities: options.elicit !== undefined ? { elicitation: { form: {} } } : {} },
  );
  const decision = options.elicit;
  if (decision !== undefined)
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { decision } }));
  await client.connect(transport);
  closing.push(() => client.close());
  return { client, transport };
}

/** The JSON-RPC messages of a server-sent event stream, in order. */
async function* sseMessages(response: Response): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf("\n\n");
    while (end !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("\n");
      if (data !== "") yield JSON.parse(data);
      end = buffered.indexOf("\n\n");
    }
  }
}

/** A raw request, so headers fetch will not send (Host) can be set. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown = initialize,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

describe("MCP over Streamable HTTP", () => {
  it("binds 127.0.0.1 by default and serves tools, resources and calls", async () => {
    const { server } = await served();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
    const { client } = await httpClient(server);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("load_skill");
    expect((await client.listResources()).resources.length).toBe(8);
    const loaded = await client.callTool({ name: "load_skill", arguments: { skill: "echo" } });
    expect(resultText(loaded)).toContain('<skill name="echo">');
  });

  it("asks by elicitation on the tool call's own stream, and the call runs once approved", async () => {
    const { server } = await served();
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await fetch(server.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        ...initialize,
        params: { ...initialize.params, capabilities: { elicitation: { form: {} } } },
      }),
    });
    const session = {
      ...headers,
      "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-06-18",
    };
    await init.text();
    await (
      await fetch(server.url, {
        method: "POST",
        headers: session,
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      })
    ).text();
    // No GET stream is open: the elicitation can only arrive on the tools/call response's own stream.
    const call = await fetch(server.url, {
      method: "POST",
      headers: session,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "run_skill_script",
          arguments: { skill: "echo", script: "scripts/echo.py", arguments: { x: 1 } },
        },
      }),
    });
    expect(call.headers.get("content-type")).toContain("text/event-stream");
    const messages = sseMessages(call);
    const asked = (await messages.next()).value as { id: number; method: string };
    expect(asked.method).toBe("elicitation/create");
    await (
      await fetch(server.url, {
        method: "POST",
        headers: session,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: asked.id,
          result: { action: "accept", content: { decision: "once" } },
        }),
      })
    ).text();
    const answer = (await messages.next()).value as {
      id: number;
      result: { content: Array<{ text: string }> };
    };
    expect(answer.id).toBe(2);
    expect(answer.result.content[0]?.text).toContain('echo {"x": 1}');
  });

  it("each HTTP session is its own chat; DELETE ends it", async () => {
    const { host, server } = await served();
    const first = await httpClient(server);
    const second = await httpClient(server);
    expect(host.sessionCount).toBe(2);
    const ids = [first.transport.sessionId, second.transport.sessionId];
    expect(new Set(ids).size).toBe(2);
    expect(host.session(ids[0] as string)?.chatId).toBe(`mcp-${ids[0]}`);
    await first.transport.terminateSession();
    expect(host.sessionCount).toBe(1);
  });

  it("with a token, a request without it or with a wrong one is answered 401", async () => {
    const { server } = await served({ token: "s3cret-token" });
    const missing = await rawPost(server.url, {});
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="skillgate"');
    const wrong = await rawPost(server.url, { authorization: "Bearer wrong" });
    expect(wrong.status).toBe(401);
    const otherScheme = await rawPost(server.url, { authorization: "Basic czNjcmV0LXRva2Vu" });
    expect(otherScheme.status).toBe(401);
    await expect(httpClient(server, { token: "not-it" })).rejects.toThrow();
    const { client } = await httpClient(server, { token: "s3cret-token" });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("refuses to bind a non-loopback address without a token, and serves it with one", async () => {
    const tree = mcpTree();
    const host = await openHost(tree);
    const refused = await serveHttp(host, { host: "0.0.0.0", port: 0 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSkillgateError(refused, "invalid_argument")).toBe(true);
    expect((refused as Error).message).toContain("refusing to serve MCP on 0.0.0.0 without a token");
    const server = await serveHttp(host, { host: "0.0.0.0", port: 0, token: "t0ken" });
    closing.push(() => server.close());
    expect((await rawPost(`http://127.0.0.1:${server.port}/mcp`, {})).status).toBe(401);
    const local = { ...server, url: `http://127.0.0.1:${server.port}/mcp` };
    const { client } = await httpClient(local, { token: "t0ken" });
    expect((await client.listPrompts()).prompts.length).toBe(1);
  });

  it("on loopback, a Host or Origin naming another host is answered 403 (DNS rebinding)", async () => {
    const { server } = await served();
    expect((await rawPost(server.url, { host: "evil.example" })).status).toBe(403);
    expect((await rawPost(server.url, { origin: "http://evil.example" })).status).toBe(403);
    expect((await rawPost(server.url, { host: `localhost:${server.port}` })).status).toBe(200);
  });

  it("answers an initialisation past the session cap 503, and closes a session left idle", async () => {
    const { host, server } = await served({ maxSessions: 1, idleSessionMs: 100 });
    const first = await rawPost(server.url, {});
    expect(first.status).toBe(200);
    expect(host.sessionCount).toBe(1);
    expect((await rawPost(server.url, {})).status).toBe(503);
    // The raw client opened no stream and went away: the sweep closes its session.
    await eventually("the idle session is closed", () => host.sessionCount === 0);
    expect((await rawPost(server.url, {})).status).toBe(200);
  });

  it("answers other paths 404, unknown sessions 404, and requests without a session 400", async () => {
    const { server } = await served();
    const base = `http://127.0.0.1:${server.port}`;
    expect((await rawPost(`${base}/other`, {})).status).toBe(404);
    expect((await rawPost(server.url, { "mcp-session-id": "no-such-session" })).status).toBe(404);
    const notInitialize = await rawPost(server.url, {}, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(notInitialize.status).toBe(400);
    const notJson = await new Promise<number>((resolve) => {
      const request = httpRequest(
        server.url,
        { method: "POST", headers: { "content-type": "application/json" } },
        (response) => resolve(response.statusCode ?? 0),
      );
      request.end("{nope");
    });
    expect(notJson).toBe(400);
  });
});

describe("skillgate mcp --http (the built CLI)", () => {
  it("prints its URL, serves a client, and exits 0 on SIGTERM", async () => {
    const tree = mcpTree();
    const home = join(tree.tree, "home");
    mkdirSync(home);
    const child = spawn(process.execPath, [cliMain, ...tree.flags, "mcp", "--http", "--port", "0"], {
      cwd: home,
      env: { ...childEnvironment(home), SKILLGATE_MCP_TOKEN: "env-token" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    closing.push(async () => {
      child.kill("SIGKILL");
      await exited;
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const match = /MCP over Streamable HTTP at (http:\/\/\S+)/.exec(out);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.on("close", () => reject(new Error(`exited before listening: ${out}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // SKILLGATE_MCP_TOKEN is required even on loopback once it is set.
    expect((await rawPost(url, {})).status).toBe(401);
    const server = { url, port: Number(new URL(url).port), close: async () => {} };
    const { client } = await httpClient(server, { token: "env-token" });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("refuses --host 0.0.0.0 without a token: one line, exit 1", async () => {
    const tree = mcpTree();
    const home = join(tree.tree, "home");
    mkdirSync(home);
    const child = spawn(
      process.execPath,
      [cliMain, ...tree.flags, "mcp", "--http", "--host", "0.0.0.0", "--port", "0"],
      {
        cwd: home,
        env: childEnvironment(home),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(err).toBe(
      "skillgate: refusing to serve MCP on 0.0.0.0 without a token: give --token or SKILLGATE_MCP_TOKEN, or bind to 127.0.0.1 [invalid_argument]\n",
    );
  });
});
