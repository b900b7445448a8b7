import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProxyRefusal, ProxyRefusalReason } from "../../../src/runners/proxy/refusals.js";
import { rawExchange, startHttp, startTestProxy, type TestProxy, type Upstream } from "./proxy-harness.js";

// Every name below that could reach a server resolves to the local upstream and the loopback
// block is lifted: a request that slipped past a name check would show up as a connection.
let upstream: Upstream;
let test: TestProxy;
beforeAll(async () => {
  upstream = await startHttp();
  test = await startTestProxy({
    allowedDomains: [`allowed.test:${upstream.port}`],
    hosts: {
      "allowed.test": ["127.0.0.1"],
      "evil.test": ["127.0.0.1"],
      "allowed.test.evil.test": ["127.0.0.1"],
    },
    liftLoopback: true,
    limits: { maxHeaderBytes: 8 * 1024 },
  });
});
afterAll(async () => {
  await test.close();
  await upstream.close();
});

type Row = [
  label: string,
  request: string,
  status: number,
  reason: ProxyRefusalReason,
  kind: ProxyRefusal["kind"],
  host: string,
  port: "P" | "P+1" | number | null,
];

const get = (url: string, host: string, extra = "") => `GET ${url} HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`;
const connectTo = (authority: string, host = authority) =>
  `CONNECT ${authority} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

// `{P}` is the upstream's port (allowed), `{P+1}` another one (not allowed).
// biome-ignore format: one row per line keeps the table readable.
const rows: Row[] = [
  ["unlisted host (CONNECT)", connectTo("evil.test:{P}"), 403, "not_allowed", "connect", "evil.test", "P"],
  ["unlisted host (HTTP)", get("http://evil.test:{P}/", "evil.test:{P}"), 403, "not_allowed", "http", "evil.test", "P"],
  ["suffix trick", connectTo("allowed.test.evil.test:{P}"), 403, "not_allowed", "connect", "allowed.test.evil.test", "P"],
  ["wrong port (CONNECT)", connectTo("allowed.test:{P+1}"), 403, "not_allowed", "connect", "allowed.test", "P+1"],
  ["wrong port (HTTP)", get("http://allowed.test:{P+1}/", "allowed.test:{P+1}"), 403, "not_allowed", "http", "allowed.test", "P+1"],
  ["default port when the entry names one", get("http://allowed.test/", "allowed.test"), 403, "not_allowed", "http", "allowed.test", 80],
  ["userinfo (CONNECT)", connectTo("allowed.test@evil.test:{P}"), 403, "userinfo", "connect", "allowed.test@evil.test", "P"],
  ["userinfo (HTTP)", get("http://allowed.test@evil.test:{P}/", "evil.test:{P}"), 403, "userinfo", "http", "allowed.test@evil.test", "P"],
  ["user and password (HTTP)", get("http://allowed.test:{P}@evil.test/", "evil.test"), 403, "userinfo", "http", "allowed.test:{P}@evil.test", null],
  ["NUL in the name (the parser refuses; named from the request line)", connectTo("allowed.test\u0000.evil.test:{P}"), 403, "bad_name", "connect", "allowed.test\\u0000.evil.test", "P"],
  ["percent-encoded NUL", connectTo("allowed.test%00.evil.test:{P}"), 403, "bad_name", "connect", "allowed.test%00.evil.test", "P"],
  ["tab in the name", connectTo("allowed.test\t:{P}"), 403, "bad_name", "connect", "allowed.test\\u0009", "P"],
  ["wildcard", connectTo("*.test:{P}"), 403, "bad_name", "connect", "*.test", "P"],
  ["single label", connectTo("localhost:{P}"), 403, "bad_name", "connect", "localhost", "P"],
  ["two trailing dots", connectTo("allowed.test..:{P}"), 403, "bad_name", "connect", "allowed.test..", "P"],
  ["port out of range", connectTo("allowed.test:70000"), 403, "bad_name", "connect", "allowed.test", 70000],
  ["decimal IPv4", connectTo("2130706433:{P}"), 403, "ip_literal", "connect", "2130706433", "P"],
  ["octal IPv4", connectTo("0177.0.0.1:{P}"), 403, "ip_literal", "connect", "0177.0.0.1", "P"],
  ["hex IPv4", connectTo("0x7f000001:{P}"), 403, "ip_literal", "connect", "0x7f000001", "P"],
  ["short IPv4", get("http://127.1:{P}/", "127.1:{P}"), 403, "ip_literal", "http", "127.1", "P"],
  ["dotted IPv4 (HTTP)", get("http://127.0.0.1:{P}/", "127.0.0.1:{P}"), 403, "ip_literal", "http", "127.0.0.1", "P"],
  ["IPv6 loopback literal", connectTo("[::1]:{P}"), 403, "ip_literal", "connect", "[::1]", "P"],
  ["IPv6 literal (HTTP)", get("http://[::1]:{P}/", "[::1]:{P}"), 403, "ip_literal", "http", "[::1]", "P"],
  ["Host header names another host (HTTP)", get("http://allowed.test:{P}/", "evil.test:{P}"), 403, "host_mismatch", "http", "allowed.test", "P"],
  ["Host header names another port (HTTP)", get("http://allowed.test:{P}/", "allowed.test"), 403, "host_mismatch", "http", "allowed.test", "P"],
  ["Host header is an address (HTTP)", get("http://allowed.test:{P}/", "127.0.0.1:{P}"), 403, "host_mismatch", "http", "allowed.test", "P"],
  ["Host header names another host (CONNECT)", connectTo("allowed.test:{P}", "evil.test:{P}"), 403, "host_mismatch", "connect", "allowed.test", "P"],
  ["two Host headers", get("http://allowed.test:{P}/", "allowed.test:{P}", "Host: evil.test:{P}\r\n"), 400, "bad_request", "http", "allowed.test", "P"],
  ["origin-form request", get("/", "allowed.test:{P}"), 400, "bad_request", "http", "", null],
  ["https URL without CONNECT", get("https://allowed.test:{P}/", "allowed.test:{P}"), 400, "bad_request", "http", "", null],
  ["protocol upgrade", get("http://allowed.test:{P}/", "allowed.test:{P}", "Connection: Upgrade\r\nUpgrade: websocket\r\n"), 400, "bad_request", "http", "allowed.test:{P}", null],
  ["malformed request line", "GARBAGE\r\n\r\n", 400, "bad_request", "unreadable", "", null],
  ["space inside the target", "CONNECT allowed.test :{P} HTTP/1.1\r\n\r\n", 400, "bad_request", "unreadable", "", null],
  ["unknown HTTP version", "CONNECT allowed.test:{P} HTTP/9.9\r\n\r\n", 400, "bad_request", "unreadable", "", null],
  ["bare LF line endings", "CONNECT allowed.test:{P} HTTP/1.1\nHost: allowed.test:{P}\n\n", 400, "bad_request", "unreadable", "", null],
  ["header line without a colon", "CONNECT allowed.test:{P} HTTP/1.1\r\nHost allowed.test\r\n\r\n", 400, "bad_request", "unreadable", "", null],
  ["Content-Length with Transfer-Encoding (smuggling)", get("http://allowed.test:{P}/", "allowed.test:{P}", "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n"), 400, "bad_request", "unreadable", "", null],
  ["HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "bad_request", "unreadable", "", null],
  ["oversized header", get("http://allowed.test:{P}/", "allowed.test:{P}", `X-Big: ${"a".repeat(10_000)}\r\n`), 431, "header_too_large", "unreadable", "", null],
];

describe("hostile requests over the socket: answered, reported with the exact reason, nothing reaches a server", () => {
  it.each(rows)("%s", async (_label, template, status, reason, kind, host, port) => {
    const fill = (text: string) =>
      text.replaceAll("{P+1}", String(upstream.port + 1)).replaceAll("{P}", String(upstream.port));
    const before = test.refusals.length;
    const reply = await rawExchange(test.socketPath, Buffer.from(fill(template), "utf8"));
    expect(reply.status).toBe(status);
    expect(reply.headers["x-skillgate-refusal"]).toBe(reason);
    expect(reply.body).toMatch(/^HOST: the skillgate network proxy refused /);
    const expectedPort = port === "P" ? upstream.port : port === "P+1" ? upstream.port + 1 : port;
    expect(test.refusals.slice(before)).toEqual([{ host: fill(host), port: expectedPort, reason, kind }]);
    expect(upstream.connections).toBe(0);
  });

  it("survives arbitrary bytes and still serves an allowed request afterwards", async () => {
    const send = (bytes: Uint8Array) =>
      new Promise<void>((resolve) => {
        const socket = connect(test.socketPath);
        socket.on("error", () => {});
        socket.on("close", () => resolve());
        socket.resume();
        socket.end(bytes);
      });
    const requestish = fc
      .array(
        fc.constantFrom(
          "CONNECT ",
          "GET ",
          "http://",
          "allowed.test",
          ":",
          "@",
          "\u0000",
          " HTTP/1.1",
          "\r\n",
          "Host: ",
          "Transfer-Encoding: chunked",
          "Content-Length: 5",
          "0x7f.1",
          "[",
        ),
        { maxLength: 20 },
      )
      .map((parts) => Buffer.from(parts.join(""), "utf8"));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 2048 }), requestish), async (bytes) => {
        await send(bytes);
      }),
      { numRuns: 150 },
    );
    expect(upstream.connections).toBe(0);
    const reply = await rawExchange(test.socketPath, connectTo(`allowed.test:${upstream.port}`));
    expect(reply.status).toBe(200);
    reply.tunnel?.destroy();
  });
});
