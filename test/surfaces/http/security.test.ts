import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { CSRF_HEADERS, rawRequest, startTestServer, TEST_TOKEN } from "../../helpers/http-server.js";

/**
 * What the server refuses before any route runs, each with its exact status and code: the
 * credential (none, wrong, in the query, another port's cookie), the Host (DNS rebinding),
 * Origin and the CSRF header on state-changing requests, and failed logins past the limit.
 * Nothing refused changes the store.
 */

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };

/** The cookie pair (`name=value`) a successful login sets. */
async function loginCookie(port: number, token: string): Promise<string> {
  const answer = await rawRequest(port, "GET", `/login?token=${encodeURIComponent(token)}`);
  expect(answer.status).toBe(303);
  const setCookie = answer.headers["set-cookie"];
  const line = (Array.isArray(setCookie) ? setCookie[0] : setCookie) ?? "";
  return line.split(";")[0] ?? "";
}

describe("requests the server refuses", () => {
  it("answers each bad request with its status and code, and none changes the store", async () => {
    const served = await startTestServer();
    const { port } = served.server;
    const revision = await served.server.context.store.revision();
    const cases: Array<{
      what: string;
      method: string;
      path: string;
      headers: Record<string, string>;
      status: number;
      code: string;
    }> = [
      {
        what: "no token",
        method: "GET",
        path: "/api/openapi.json",
        headers: {},
        status: 401,
        code: "unauthorized",
      },
      {
        what: "a wrong token",
        method: "GET",
        path: "/api/openapi.json",
        headers: { Authorization: "Bearer nope" },
        status: 401,
        code: "unauthorized",
      },
      {
        what: "not a bearer scheme",
        method: "GET",
        path: "/api/openapi.json",
        headers: { Authorization: `Basic ${TEST_TOKEN}` },
        status: 401,
        code: "unauthorized",
      },
      {
        what: "the token in the query",
        method: "GET",
        path: `/api/openapi.json?token=${TEST_TOKEN}`,
        headers: {},
        status: 400,
        code: "token_in_query",
      },
      {
        what: "access_token in the query, with a bearer too",
        method: "GET",
        path: `/api/openapi.json?access_token=${TEST_TOKEN}`,
        headers: bearer,
        status: 400,
        code: "token_in_query",
      },
      {
        what: "a foreign Host",
        method: "GET",
        path: "/api/openapi.json",
        headers: { ...bearer, Host: `evil.example:${port}` },
        status: 403,
        code: "host_not_allowed",
      },
      {
        what: "a loopback Host on another port",
        method: "GET",
        path: "/api/openapi.json",
        headers: { ...bearer, Host: `localhost:${port + 1}` },
        status: 403,
        code: "host_not_allowed",
      },
      {
        what: "a foreign Host for the UI",
        method: "GET",
        path: "/",
        headers: { Host: "rebind.example" },
        status: 403,
        code: "host_not_allowed",
      },
      {
        what: "a foreign Origin",
        method: "POST",
        path: "/api/openapi.json",
        headers: { ...bearer, ...CSRF_HEADERS, Origin: "http://evil.example" },
        status: 403,
        code: "origin_not_allowed",
      },
      {
        what: "a loopback Origin on another port",
        method: "DELETE",
        path: "/api/openapi.json",
        headers: { ...bearer, ...CSRF_HEADERS, Origin: `http://127.0.0.1:${port + 1}` },
        status: 403,
        code: "origin_not_allowed",
      },
      {
        what: "a cross-site fetch",
        method: "PUT",
        path: "/api/openapi.json",
        headers: { ...bearer, ...CSRF_HEADERS, "Sec-Fetch-Site": "cross-site" },
        status: 403,
        code: "origin_not_allowed",
      },
      {
        what: "a null Origin",
        method: "POST",
        path: "/api/openapi.json",
        headers: { ...bearer, ...CSRF_HEADERS, Origin: "null" },
        status: 403,
        code: "origin_not_allowed",
      },
      {
        what: "no CSRF header",
        method: "POST",
        path: "/api/openapi.json",
        headers: bearer,
        status: 403,
        code: "csrf_missing",
      },
      {
        what: "no CSRF header on logout",
        method: "POST",
        path: "/api/logout",
        headers: {},
        status: 403,
        code: "csrf_missing",
      },
    ];
    for (const item of cases) {
      const answer = await rawRequest(port, item.method, item.path, item.headers);
      expect({ what: item.what, status: answer.status }).toEqual({ what: item.what, status: item.status });
      expect(JSON.parse(answer.body).error.code, item.what).toBe(item.code);
    }
    expect(await served.server.context.store.revision()).toBe(revision);
    // The same state-changing request with its Origin and CSRF header passes the checks (no route: 404).
    const passes = await rawRequest(port, "POST", "/api/openapi.json", {
      ...bearer,
      ...CSRF_HEADERS,
      Origin: `http://127.0.0.1:${port}`,
    });
    expect(passes.status).toBe(404);
    expect(JSON.parse(passes.body).error.code).toBe("not_found");
  });

  it("answers 400 to a request without a Host header or with an empty one", async () => {
    const served = await startTestServer();
    const send = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(served.server.port, "127.0.0.1", () => socket.end(request));
        let text = "";
        socket.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    const auth = `Authorization: Bearer ${TEST_TOKEN}\r\n`;
    // Node answers both before the app (the guard's own host_missing covers other listeners).
    const none = await send(`GET /api/openapi.json HTTP/1.0\r\n${auth}\r\n`);
    expect(none.split("\r\n")[0]).toMatch(/^HTTP\/1\.[01] 400 Bad Request$/);
    const empty = await send(`GET /api/openapi.json HTTP/1.1\r\nHost: \r\n${auth}Connection: close\r\n\r\n`);
    expect(empty.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
  });

  it("challenges a request without a credential with WWW-Authenticate", async () => {
    const served = await startTestServer();
    const answer = await rawRequest(served.server.port, "GET", "/api/openapi.json");
    expect(answer.headers["www-authenticate"]).toBe('Bearer realm="skillgate"');
  });

  it("answers a reverse proxy's name given with allowedHosts, on any port", async () => {
    const served = await startTestServer({ server: { allowedHosts: ["Skills.Home.Lan"] } });
    const { port } = served.server;
    for (const host of ["skills.home.lan", "skills.home.lan:443"]) {
      const answer = await rawRequest(port, "GET", "/api/openapi.json", { ...bearer, Host: host });
      expect(answer.status, host).toBe(200);
    }
    const origin = await rawRequest(port, "POST", "/api/x", {
      ...bearer,
      ...CSRF_HEADERS,
      Host: "skills.home.lan",
      Origin: "https://skills.home.lan",
    });
    expect(origin.status).toBe(404);
  });
});

describe("the login link and the session cookie", () => {
  it("trades the token for an HttpOnly SameSite=Strict cookie and sends the browser to / without it", async () => {
    const served = await startTestServer();
    const { port } = served.server;
    const answer = await rawRequest(port, "GET", `/login?token=${TEST_TOKEN}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe("/");
    expect(answer.headers["cache-control"]).toBe("no-store");
    const setCookie = String(answer.headers["set-cookie"]);
    expect(setCookie).toMatch(new RegExp(`^skillgate_session_${port}=v1\\.`));
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).not.toContain(TEST_TOKEN);
    const cookie = await loginCookie(port, TEST_TOKEN);
    expect((await rawRequest(port, "GET", "/api/openapi.json", { Cookie: cookie })).status).toBe(200);
    // A cookie is not a CSRF token: a state-changing request still needs the header.
    const noHeader = await rawRequest(port, "POST", "/api/openapi.json", {
      Cookie: cookie,
      Origin: `http://127.0.0.1:${port}`,
    });
    expect(noHeader.status).toBe(403);
    // /mcp takes the bearer token only, never the cookie.
    expect(
      (await rawRequest(port, "POST", "/mcp", { Cookie: cookie, "Content-Type": "application/json" }, "{}"))
        .status,
    ).toBe(401);
  });

  it("refuses a cookie made by a server on another port, under either name", async () => {
    const first = await startTestServer();
    const second = await startTestServer();
    const cookie = await loginCookie(first.server.port, TEST_TOKEN);
    const value = cookie.split("=")[1] ?? "";
    expect((await rawRequest(first.server.port, "GET", "/api/openapi.json", { Cookie: cookie })).status).toBe(
      200,
    );
    const asSent = await rawRequest(second.server.port, "GET", "/api/openapi.json", { Cookie: cookie });
    expect(asSent.status).toBe(401);
    expect(JSON.parse(asSent.body).error.code).toBe("unauthorized");
    const renamed = await rawRequest(second.server.port, "GET", "/api/openapi.json", {
      Cookie: `skillgate_session_${second.server.port}=${value}`,
    });
    expect(renamed.status).toBe(401);
  });

  it("answers a wrong login link 401 and a login form without a token", async () => {
    const served = await startTestServer();
    const wrong = await rawRequest(served.server.port, "GET", "/login?token=wrong");
    expect(wrong.status).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    const form = await rawRequest(served.server.port, "GET", "/login");
    expect(form.status).toBe(200);
    expect(form.body).toContain('<label for="token">');
  });

  it("logs the UI in with POST /api/login {token}: 204 and the cookie; a wrong token is 401 and counts", async () => {
    const served = await startTestServer({ server: { loginAttempts: { maxFailures: 2 } } });
    const { port } = served.server;
    const json = { ...CSRF_HEADERS, "Content-Type": "application/json", Origin: `http://127.0.0.1:${port}` };
    const ok = await rawRequest(port, "POST", "/api/login", json, JSON.stringify({ token: TEST_TOKEN }));
    expect(ok.status).toBe(204);
    const cookie = String(ok.headers["set-cookie"]).split(";")[0] ?? "";
    expect(cookie).toMatch(new RegExp(`^skillgate_session_${port}=v1\\.`));
    expect((await rawRequest(port, "GET", "/api/openapi.json", { Cookie: cookie })).status).toBe(200);
    const noCsrf = await rawRequest(
      port,
      "POST",
      "/api/login",
      { "Content-Type": "application/json" },
      JSON.stringify({ token: TEST_TOKEN }),
    );
    expect(noCsrf.status).toBe(403);
    const notJson = await rawRequest(port, "POST", "/api/login", json, "token=x");
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body).error.code).toBe("invalid_argument");
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const wrong = await rawRequest(port, "POST", "/api/login", json, JSON.stringify({ token: "guess" }));
      expect(wrong.status).toBe(401);
      expect(wrong.headers["set-cookie"]).toBeUndefined();
    }
    const locked = await rawRequest(port, "POST", "/api/login", json, JSON.stringify({ token: TEST_TOKEN }));
    expect(locked.status).toBe(429);
  });

  it("clears the cookie on logout", async () => {
    const served = await startTestServer();
    const answer = await rawRequest(served.server.port, "POST", "/api/logout", CSRF_HEADERS);
    expect(answer.status).toBe(204);
    expect(String(answer.headers["set-cookie"])).toMatch(/Max-Age=0/);
  });
});

describe("failed logins", () => {
  it("refuses every attempt from an address past the limit with 429 and Retry-After, the right token too", async () => {
    const served = await startTestServer({ server: { loginAttempts: { maxFailures: 3, windowMs: 60_000 } } });
    const { port } = served.server;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const path = attempt === 1 ? "/login?token=guess" : "/api/openapi.json";
      const answer = await rawRequest(
        port,
        "GET",
        path,
        attempt === 1 ? {} : { Authorization: `Bearer guess-${attempt}` },
      );
      expect(answer.status).toBe(401);
    }
    // A request with no credential is not a guess, and is still answered 429 once the address is locked.
    for (const headers of [bearer, {}]) {
      const answer = await rawRequest(port, "GET", "/api/openapi.json", headers);
      expect(answer.status).toBe(429);
      expect(JSON.parse(answer.body).error.code).toBe("too_many_attempts");
      expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect((await rawRequest(port, "GET", `/login?token=${TEST_TOKEN}`)).status).toBe(429);
  });

  it("does not count requests without a credential as failures", async () => {
    const served = await startTestServer({ server: { loginAttempts: { maxFailures: 2 } } });
    for (let attempt = 0; attempt < 5; attempt += 1)
      expect((await rawRequest(served.server.port, "GET", "/api/openapi.json")).status).toBe(401);
    expect((await rawRequest(served.server.port, "GET", "/api/openapi.json", bearer)).status).toBe(200);
  });
});

describe("security headers", () => {
  it("sends the content-security policy and the other headers on the UI and the API", async () => {
    const served = await startTestServer();
    for (const path of ["/", "/api/openapi.json"]) {
      const answer = await rawRequest(served.server.port, "GET", path, bearer);
      const policy = String(answer.headers["content-security-policy"]);
      expect(policy, path).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("object-src 'none'");
      expect(answer.headers["x-frame-options"]).toBe("DENY");
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["referrer-policy"]).toBe("no-referrer");
    }
  });
});
