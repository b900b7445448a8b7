import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSkillgateError } from "../../../src/core/errors.js";
import type { ProxyRefusalReason } from "../../../src/runners/proxy/refusals.js";
import {
  checkTarget,
  createAllowList,
  hostHeaderAgrees,
  type ProxyRequestKind,
  parseAbsoluteUrl,
} from "../../../src/runners/proxy/target.js";

const allowList = createAllowList(["allowed.test", "api.allowed.test:8443", "xn--bcher-kva.example"]);

describe("checkTarget: hostile names", () => {
  const refused: Array<[string, ProxyRequestKind, string, ProxyRefusalReason]> = [
    ["unlisted host", "connect", "evil.test:443", "not_allowed"],
    ["listed host on another port", "connect", "allowed.test:8443", "not_allowed"],
    ["listed port-bound host on its default port", "connect", "api.allowed.test:443", "not_allowed"],
    ["plain http to a CONNECT-only port", "http", "api.allowed.test", "not_allowed"],
    ["subdomain of a listed host", "connect", "x.allowed.test:443", "not_allowed"],
    ["suffix trick", "connect", "allowed.test.evil.test:443", "not_allowed"],
    ["userinfo", "connect", "allowed.test@evil.test:443", "userinfo"],
    ["userinfo with a password", "http", "allowed.test:80@evil.test", "userinfo"],
    ["NUL in the name", "connect", "allowed.test\u0000.evil.test:443", "bad_name"],
    ["percent-encoded NUL", "connect", "allowed.test%00.evil.test:443", "bad_name"],
    ["percent-encoded dot", "connect", "allowed%2etest:443", "bad_name"],
    ["tab in the name", "connect", "allowed.test\t:443", "bad_name"],
    ["DEL in the name", "connect", "allowed\u007f.test:443", "bad_name"],
    ["backslash", "http", "evil.test\\allowed.test", "bad_name"],
    ["wildcard", "connect", "*.allowed.test:443", "bad_name"],
    ["single label", "connect", "localhost:443", "bad_name"],
    ["two trailing dots", "connect", "allowed.test..:443", "bad_name"],
    ["empty label", "connect", "allowed..test:443", "bad_name"],
    ["empty host", "connect", ":443", "bad_name"],
    ["empty port", "connect", "allowed.test:", "bad_name"],
    ["port 0", "connect", "allowed.test:0", "bad_name"],
    ["port out of range", "connect", "allowed.test:65536", "bad_name"],
    ["six-digit port", "connect", "allowed.test:100443", "bad_name"],
    ["signed port", "connect", "allowed.test:+443", "bad_name"],
    ["label starting with a hyphen", "connect", "-allowed.test:443", "bad_name"],
    ["decimal IPv4", "connect", "2130706433:443", "ip_literal"],
    ["octal IPv4", "connect", "0177.0.0.1:443", "ip_literal"],
    ["hex IPv4", "connect", "0x7f000001:443", "ip_literal"],
    ["dotted hex IPv4", "connect", "0x7f.0x0.0x0.0x1:443", "ip_literal"],
    ["short dotted IPv4", "connect", "127.1:443", "ip_literal"],
    ["dotted IPv4", "http", "169.254.169.254", "ip_literal"],
    ["dotted IPv4 with a trailing dot", "connect", "127.0.0.1.:443", "ip_literal"],
    ["bracketed IPv6", "connect", "[::1]:443", "ip_literal"],
    ["bracketed IPv4-mapped IPv6", "http", "[::ffff:127.0.0.1]", "ip_literal"],
    ["bare IPv6", "connect", "::1", "ip_literal"],
    ["bare IPv6 metadata", "connect", "fd00:ec2::254", "ip_literal"],
    ["colons that are not IPv6", "connect", "a:b:c", "bad_name"],
    ["numeric top-level label", "connect", "allowed.123:443", "bad_name"],
  ];
  it.each(refused)("%s: %j (%s) is %s", (_label, kind, authority, reason) => {
    const check = checkTarget(authority, kind, allowList);
    expect(check).toMatchObject({ ok: false, reason });
  });

  const allowed: Array<[string, ProxyRequestKind, string, string, number]> = [
    ["listed host, CONNECT default port", "connect", "allowed.test:443", "allowed.test", 443],
    ["listed host, http default port", "http", "allowed.test", "allowed.test", 80],
    ["explicit default port", "http", "allowed.test:80", "allowed.test", 80],
    ["trailing dot", "connect", "allowed.test.:443", "allowed.test", 443],
    ["upper case", "connect", "ALLOWED.Test:443", "allowed.test", 443],
    ["listed port", "connect", "api.allowed.test:8443", "api.allowed.test", 8443],
    ["same port over plain http", "http", "api.allowed.test:8443", "api.allowed.test", 8443],
    ["unicode name matches its IDNA entry", "connect", "bücher.example:443", "xn--bcher-kva.example", 443],
    ["full-width letters fold to ASCII", "connect", "ａｌｌｏｗｅｄ.test:443", "allowed.test", 443],
  ];
  it.each(allowed)("%s: %j (%s) is allowed as %s:%i", (_label, kind, authority, host, port) => {
    expect(checkTarget(authority, kind, allowList)).toEqual({ ok: true, target: { host, port } });
  });

  it("reports the canonical name for not_allowed and the raw one for a bad name", () => {
    expect(checkTarget("EVIL.test.:8080", "connect", allowList)).toEqual({
      ok: false,
      reason: "not_allowed",
      host: "evil.test",
      port: 8080,
    });
    expect(checkTarget("a\u0000b.test:443", "connect", allowList)).toEqual({
      ok: false,
      reason: "bad_name",
      host: "a\u0000b.test",
      port: 443,
    });
  });

  it("never throws and only ever allows what the list allows (property)", () => {
    const pieces = fc.constantFrom(
      "allowed.test",
      "ALLOWED.TEST",
      ".",
      ":",
      "@",
      "[",
      "]",
      "%",
      "\u0000",
      "0x7f",
      "127",
      "443",
      "8443",
      "api.",
      "ü",
      "*",
      "-",
    );
    const authority = fc.oneof(
      fc.string(),
      fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(authority, fc.constantFrom<ProxyRequestKind>("connect", "http"), (text, kind) => {
        const check = checkTarget(text, kind, allowList);
        if (check.ok) expect(allowList.allows(check.target, kind)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("createAllowList", () => {
  it("canonicalises entries the way skill governance does", () => {
    expect(createAllowList(["API.Example.COM.", "bücher.example:8443"]).entries).toEqual([
      "api.example.com",
      "xn--bcher-kva.example:8443",
    ]);
  });

  it.each(["127.0.0.1", "*.example.com", "user@example.com", "example.com/path", "localhost", ""])(
    "refuses the entry %j with invalid_argument",
    (entry) => {
      let caught: unknown;
      try {
        createAllowList([entry]);
      } catch (error) {
        caught = error;
      }
      expect(isSkillgateError(caught, "invalid_argument")).toBe(true);
    },
  );

  it("allows nothing when empty", () => {
    expect(checkTarget("allowed.test:443", "connect", createAllowList([]))).toMatchObject({
      ok: false,
      reason: "not_allowed",
    });
  });
});

describe("hostHeaderAgrees", () => {
  const target = { host: "allowed.test", port: 8080 };
  it.each([
    ["allowed.test:8080", "http", true],
    ["ALLOWED.test.:8080", "http", true],
    ["allowed.test", "http", false],
    ["evil.test:8080", "http", false],
    ["allowed.test:8081", "http", false],
    ["allowed.test@evil.test:8080", "http", false],
    ["127.0.0.1:8080", "http", false],
    ["", "http", false],
  ] as Array<[string, ProxyRequestKind, boolean]>)("Host %j for %s is %s", (header, kind, agrees) => {
    expect(hostHeaderAgrees(header, target, kind)).toBe(agrees);
  });

  it("fills in the kind's default port", () => {
    expect(hostHeaderAgrees("allowed.test", { host: "allowed.test", port: 443 }, "connect")).toBe(true);
    expect(hostHeaderAgrees("allowed.test", { host: "allowed.test", port: 443 }, "http")).toBe(false);
  });
});

describe("parseAbsoluteUrl", () => {
  it.each([
    ["http://allowed.test/a?b=1", "allowed.test", "/a?b=1"],
    ["HTTP://allowed.test:8080", "allowed.test:8080", "/"],
    ["http://allowed.test?x", "allowed.test", "/?x"],
    ["http://allowed.test/a#frag", "allowed.test", "/a"],
    ["http://u:p@evil.test/", "u:p@evil.test", "/"],
  ])("%j has authority %j and path %j", (url, authority, path) => {
    expect(parseAbsoluteUrl(url)).toEqual({ ok: true, authority, path });
  });

  it.each([
    "/",
    "https://allowed.test/",
    "ftp://allowed.test/",
    "http:/allowed.test/",
    "allowed.test:80",
    "",
  ])("refuses %j", (url) => {
    expect(parseAbsoluteUrl(url)).toEqual({ ok: false });
  });
});
