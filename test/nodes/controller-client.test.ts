import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ControllerClient } from "../../src/nodes/agent/controller-client.js";
import { AGENT_ROUTES } from "../../src/nodes/protocol.js";

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("ControllerClient", () => {
  it("sends the node credential and reads the manifest, a package and a heartbeat answer", async () => {
    const seen: string[] = [];
    const url = await serve((request, response) => {
      seen.push(
        `${request.method} ${request.url} ${request.headers.authorization} ${request.headers["accept-encoding"]}`,
      );
      if (request.url === AGENT_ROUTES.manifest)
        response.end(JSON.stringify({ payload: "e30=", signature: "AA==" }));
      else if (request.url === `${AGENT_ROUTES.packages}/alpha@${"a".repeat(64)}`)
        response.end(Buffer.from([1, 2, 3]));
      else if (request.url === AGENT_ROUTES.heartbeat) response.end(JSON.stringify({ manifestSequence: 7 }));
      else response.writeHead(404).end();
    });
    const client = new ControllerClient({ controllerUrl: `${url}/`, credential: "secret-credential" });
    expect(await client.manifest()).toEqual({ payload: "e30=", signature: "AA==" });
    expect([...(await client.package("alpha", "a".repeat(64), 3))]).toEqual([1, 2, 3]);
    const beat = {
      features: ["skills"],
      sandbox: { available: false },
      os: "linux",
      arch: "x64",
      skills: {},
      runs: [],
      agentVersion: "0",
    };
    expect(await client.heartbeat(beat)).toEqual({ manifestSequence: 7 });
    expect(seen).toEqual([
      `GET ${AGENT_ROUTES.manifest} Bearer secret-credential identity`,
      `GET ${AGENT_ROUTES.packages}/alpha@${"a".repeat(64)} Bearer secret-credential identity`,
      `POST ${AGENT_ROUTES.heartbeat} Bearer secret-credential identity`,
    ]);
  });

  it("reports a refusal with the status and the controller's code", async () => {
    const url = await serve((_request, response) => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "node_unauthorized", message: "no" } }));
    });
    await expect(
      new ControllerClient({ controllerUrl: url, credential: "x" }).manifest(),
    ).rejects.toMatchObject({
      code: "controller_refused",
      data: { status: 401, serverCode: "node_unauthorized" },
    });
  });

  it("cuts a package longer than the manifest's size, declared or streamed", async () => {
    const declared = await serve((_request, response) => {
      response.writeHead(200, { "content-length": "100" });
      response.end(Buffer.alloc(100));
    });
    await expect(
      new ControllerClient({ controllerUrl: declared, credential: "x" }).package("alpha", "a".repeat(64), 10),
    ).rejects.toMatchObject({ code: "controller_response_too_large" });
    const streamed = await serve((_request, response) => {
      response.writeHead(200);
      response.write(Buffer.alloc(8));
      response.end(Buffer.alloc(8));
    });
    await expect(
      new ControllerClient({ controllerUrl: streamed, credential: "x" }).package("alpha", "a".repeat(64), 10),
    ).rejects.toMatchObject({ code: "controller_response_too_large" });
  });

  it("gives up at its timeout, and names an unreachable controller", async () => {
    const silent = await serve(() => {
      // Never answers.
    });
    await expect(
      new ControllerClient({ controllerUrl: silent, credential: "x", timeoutMs: 100 }).manifest(),
    ).rejects.toMatchObject({ code: "controller_timeout" });
    const closed = await serve(() => {});
    const server = servers.pop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await expect(
      new ControllerClient({ controllerUrl: closed, credential: "x" }).manifest(),
    ).rejects.toMatchObject({
      code: "controller_unreachable",
    });
  });

  it("refuses an answer that is not JSON", async () => {
    const url = await serve((_request, response) => response.end("<html>"));
    await expect(
      new ControllerClient({ controllerUrl: url, credential: "x" }).manifest(),
    ).rejects.toMatchObject({
      code: "controller_bad_response",
    });
  });
});
