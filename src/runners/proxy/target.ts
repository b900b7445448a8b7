import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { InvalidArgumentError } from "../../core/errors.js";
import { canonicalHost } from "../../skill/governance.js";
import type { ProxyRefusalReason } from "./refusals.js";

/** `connect` for an HTTPS tunnel, `http` for a plain request with an absolute URL. */
export type ProxyRequestKind = "connect" | "http";

/** The port an allow-list entry without a port stands for, per kind of request. */
export const DEFAULT_PORTS: Readonly<Record<ProxyRequestKind, number>> = { http: 80, connect: 443 };

/** A canonical host (lower-case ASCII, no trailing dot) and a port. */
export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

/**
 * A target that passed the name checks, or the reason it did not. On failure `host` is what
 * to report: the canonical name when the name itself was fine (e.g. `not_allowed`), else the
 * raw requested host (to be made printable by the caller); `port` when one could be read.
 */
export type TargetCheck =
  | { readonly ok: true; readonly target: ProxyTarget }
  | {
      readonly ok: false;
      readonly reason: ProxyRefusalReason;
      readonly host: string;
      readonly port: number | null;
    };

// Control characters, spaces, and characters that never belong in a host we would connect to:
// `%` (percent-decoding is a second spelling of the name), `\` (a path separator to WHATWG).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
const FORBIDDEN_IN_NAME = /[\u0000-\u0020\u007f%\\]/;

/**
 * Reads an authority (`host` or `host:port`, as in a CONNECT target or a Host header) and
 * canonicalises the host the way the allow-list was: IDNA to ASCII, lower case, one trailing
 * dot dropped. IPv4 in any spelling the URL standard accepts (`2130706433`, `0177.0.0.1`,
 * `0x7f000001`, `127.1`) and IPv6 literals are `ip_literal`; `user@` is `userinfo`; anything
 * else that is not a host name is `bad_name`.
 */
export function parseAuthority(authority: string, defaultPort: number): TargetCheck {
  const trailingPort = /:(\d{1,5})$/.exec(authority);
  const readPort = trailingPort ? Number(trailingPort[1]) : null;
  const rawHost = trailingPort ? authority.slice(0, trailingPort.index) : authority;
  const refuse = (reason: ProxyRefusalReason, port = readPort): TargetCheck => ({
    ok: false,
    reason,
    host: rawHost,
    port,
  });
  if (FORBIDDEN_IN_NAME.test(authority)) return refuse("bad_name");
  if (authority.includes("@")) return refuse("userinfo");
  if (authority.startsWith("[")) return refuse("ip_literal");
  const colons = authority.split(":").length - 1;
  if (colons > 1) {
    // A bare IPv6 address, possibly followed by a port: never a host name.
    const literal = isIP(authority) === 6 || isIP(rawHost) === 6;
    return refuse(literal ? "ip_literal" : "bad_name", literal && isIP(authority) === 6 ? null : readPort);
  }
  let port = defaultPort;
  if (colons === 1) {
    if (readPort === null) return refuse("bad_name");
    port = readPort;
    if (port < 1 || port > 65535) return refuse("bad_name");
  }
  if (isIpLiteral(rawHost)) return refuse("ip_literal", port);
  const canonical = canonicalHost(rawHost);
  if (canonical === undefined) return refuse("bad_name", port);
  return { ok: true, target: { host: canonical, port } };
}

/** True for any spelling of an IP address a URL parser or `inet_aton` would turn into one. */
function isIpLiteral(host: string): boolean {
  const withoutDot = host.endsWith(".") ? host.slice(0, -1) : host;
  if (isIP(withoutDot) !== 0) return true;
  // The URL standard's host parser turns decimal, octal, hex and short dotted forms into
  // dotted IPv4; if it does, the name was an address.
  return isIP(domainToASCII(withoutDot)) !== 0;
}

/** A plain proxy request's absolute URL, split into the authority and the path sent upstream. */
export type AbsoluteUrl =
  | { readonly ok: true; readonly authority: string; readonly path: string }
  | { readonly ok: false };

/**
 * Splits an absolute-form request target (`http://host[:port]/path?query`). Only `http` is
 * forwarded: HTTPS goes through CONNECT, so the proxy never originates TLS. The authority is
 * returned raw (userinfo included) so {@link parseAuthority} can name what is wrong with it;
 * a fragment is dropped.
 */
export function parseAbsoluteUrl(url: string): AbsoluteUrl {
  const match = /^http:\/\/([^/?#]*)([/?#].*)?$/is.exec(url);
  if (!match) return { ok: false };
  const authority = match[1] as string;
  let path = (match[2] ?? "/").replace(/#.*$/s, "");
  if (path === "") path = "/";
  else if (path.startsWith("?")) path = `/${path}`;
  return { ok: true, authority, path };
}

/**
 * Whether a Host header names the same canonical host and port as the request target.
 * A header without a port stands for the kind's default port, so `Host: a.test` does not
 * agree with `http://a.test:8080/`.
 */
export function hostHeaderAgrees(header: string, target: ProxyTarget, kind: ProxyRequestKind): boolean {
  const parsed = parseAuthority(header, DEFAULT_PORTS[kind]);
  return parsed.ok && parsed.target.host === target.host && parsed.target.port === target.port;
}

/** The hosts (and ports) a skill may reach. */
export interface AllowList {
  /** Entries as canonical `host` or `host:port` strings. */
  readonly entries: readonly string[];
  /** Exact match of host and port; an entry without a port allows the kind's default port only. */
  allows(target: ProxyTarget, kind: ProxyRequestKind): boolean;
}

/**
 * Builds the allow-list from `skillgate.allowed-domains` values. Entries are canonicalised
 * again with {@link canonicalHost}, so the proxy and the skill's governance agree on every
 * spelling; an entry that is not a host name is a caller bug and throws `invalid_argument`.
 */
export function createAllowList(entries: readonly string[]): AllowList {
  const exact = new Set<string>();
  const defaultPortHosts = new Set<string>();
  const canonicalEntries: string[] = [];
  for (const entry of entries) {
    const canonical = canonicalHost(entry);
    if (canonical === undefined)
      throw new InvalidArgumentError("allowedDomains", `not a host name: ${JSON.stringify(entry)}`);
    canonicalEntries.push(canonical);
    if (canonical.includes(":")) exact.add(canonical);
    else defaultPortHosts.add(canonical);
  }
  return {
    entries: canonicalEntries,
    allows(target, kind) {
      if (exact.has(`${target.host}:${target.port}`)) return true;
      return defaultPortHosts.has(target.host) && target.port === DEFAULT_PORTS[kind];
    },
  };
}

/**
 * Every name check for one request target, in order: the name itself, then the allow-list.
 * Returns the canonical target to resolve, or the refusal reason.
 */
export function checkTarget(authority: string, kind: ProxyRequestKind, allowList: AllowList): TargetCheck {
  const parsed = parseAuthority(authority, DEFAULT_PORTS[kind]);
  if (!parsed.ok) return parsed;
  if (!allowList.allows(parsed.target, kind))
    return { ok: false, reason: "not_allowed", host: parsed.target.host, port: parsed.target.port };
  return parsed;
}
