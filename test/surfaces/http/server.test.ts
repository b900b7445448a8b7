import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OWNER_TOKEN_FILE } from "../../../src/surfaces/http/security/owner-token.js";
import { startServer } from "../../../src/surfaces/http/server.js";
import { startTestServer, TEST_TOKEN } from "../../helpers/http-server.js";
import { makeTree } from "../../helpers/skill-tree.js";

/** startServer: what it opens, the owner token's three origins, and the answers of its parts. */

describe("startServer", () => {
  it("serves the API with the owner's token and generates /api/openapi.json", async () => {
    const served = await startTestServer();
    expect(served.server.url).toBe(`http://127.0.0.1:${served.server.port}/`);
    expect(served.server.loginUrl).toBeUndefined();
    expect(served.server.tokenOrigin).toBe("given");
    const { status, body } = await served.json<{ openapi: string }>("/api/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
  });

  it("answers an unknown API path with the JSON error body", async () => {
    const served = await startTestServer();
    const { status, body } = await served.json<{ error: { code: string } }>("/api/no-such-route");
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });

  it("makes a token when none is given, keeps only its digest (0600) and shows it once as the login URL", async () => {
    const first = await startTestServer({ token: null });
    expect(first.server.tokenOrigin).toBe("made");
    const loginUrl = new URL(first.server.loginUrl ?? "");
    expect(loginUrl.pathname).toBe("/login");
    const token = loginUrl.searchParams.get("token") ?? "";
    expect(token.length).toBeGreaterThanOrEqual(43);
    const file = join(first.folders.data, OWNER_TOKEN_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, "utf8");
    expect(stored).not.toContain(token);
    expect((await first.fetch("/api/openapi.json")).status).toBe(200);
    await first.server.close();

    // A second start over the same data folder uses the stored digest and shows no token.
    const again = await startServer({
      port: 0,
      skillgate: {
        config: first.folders.config,
        data: first.folders.data,
        builtins: false,
        watchIntervalMs: false,
      },
    });
    try {
      expect(again.tokenOrigin).toBe("stored");
      expect(again.loginUrl).toBeUndefined();
      const answer = await fetch(`${again.url}api/openapi.json`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await again.close();
    }
  });

  it("replaces the stored token with newToken: the old one stops working", async () => {
    const first = await startTestServer({ token: null });
    const oldToken = first.token;
    await first.server.close();
    const renewed = await startServer({
      port: 0,
      newToken: true,
      skillgate: {
        config: first.folders.config,
        data: first.folders.data,
        builtins: false,
        watchIntervalMs: false,
      },
    });
    try {
      expect(renewed.tokenOrigin).toBe("made");
      const newToken = new URL(renewed.loginUrl ?? "").searchParams.get("token") ?? "";
      expect(newToken).not.toBe(oldToken);
      const withOld = await fetch(`${renewed.url}api/openapi.json`, {
        headers: { Authorization: `Bearer ${oldToken}` },
      });
      expect(withOld.status).toBe(401);
      const withNew = await fetch(`${renewed.url}api/openapi.json`, {
        headers: { Authorization: `Bearer ${newToken}` },
      });
      expect(withNew.status).toBe(200);
    } finally {
      await renewed.close();
    }
  });

  it("refuses a non-loopback bind without a token the owner chose, before opening anything", async () => {
    const tree = makeTree("skillgate-serve-bind-");
    const data = join(tree, "data");
    await expect(
      startServer({ host: "0.0.0.0", port: 0, skillgate: { data, watchIntervalMs: false } }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      data: { argument: "token" },
    });
    expect(() => statSync(data)).toThrow();
  });

  it("binds 0.0.0.0 with a token and answers at the loopback address", async () => {
    const served = await startTestServer({ server: { host: "0.0.0.0" } });
    expect(served.server.url).toBe(`http://127.0.0.1:${served.server.port}/`);
    expect((await served.fetch("/api/openapi.json")).status).toBe(200);
    expect(served.token).toBe(TEST_TOKEN);
  });

  it("stops with port_in_use when the port is taken, and closes what it opened", async () => {
    const first = await startTestServer();
    const tree = makeTree("skillgate-serve-port-");
    await expect(
      startServer({
        port: first.server.port,
        token: TEST_TOKEN,
        skillgate: {
          data: join(tree, "data"),
          config: join(tree, "config"),
          builtins: false,
          watchIntervalMs: false,
        },
      }),
    ).rejects.toMatchObject({ code: "port_in_use" });
    // The first server is untouched.
    expect((await first.fetch("/api/openapi.json")).status).toBe(200);
  });
});
