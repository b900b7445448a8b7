/**
 * Why the domain proxy refused a request. Stable codes: the audit log, tests and
 * documentation use them; never reworded.
 *
 * - `not_allowed`: the canonical host and port are not on the skill's allow-list.
 * - `bad_name`: not a host name after canonicalisation (control characters, `%`, `\`, empty
 *   labels, a wildcard, a single label, an unparsable port).
 * - `ip_literal`: an IPv4 literal in any spelling (dotted, decimal, octal, hex) or an IPv6 literal.
 * - `userinfo`: the authority carries `user@` (e.g. `allowed.com@evil.com`).
 * - `host_mismatch`: the Host header names another host or port than the request target.
 * - `blocked_address`: the name resolved to at least one address the proxy never connects to.
 * - `resolve_failed`: the name did not resolve (or resolution timed out).
 * - `bad_request`: not a proxy request (malformed request line, origin-form, a scheme other
 *   than `http`, several Host headers, an upgrade).
 * - `header_too_large`: the request head is larger than the limit.
 * - `too_many_tunnels`: the cap on concurrent upstream connections is reached.
 */
export type ProxyRefusalReason =
  | "not_allowed"
  | "bad_name"
  | "ip_literal"
  | "userinfo"
  | "host_mismatch"
  | "blocked_address"
  | "resolve_failed"
  | "bad_request"
  | "header_too_large"
  | "too_many_tunnels";

/** Every reason, for documentation and exhaustive tests. */
export const PROXY_REFUSAL_REASONS: readonly ProxyRefusalReason[] = [
  "not_allowed",
  "bad_name",
  "ip_literal",
  "userinfo",
  "host_mismatch",
  "blocked_address",
  "resolve_failed",
  "bad_request",
  "header_too_large",
  "too_many_tunnels",
];

/**
 * One refusal, as the runner appends it to the audit log. `host` is the name as requested,
 * with control characters escaped and clipped, so it is safe to store as text; it is `""`
 * when the request could not be read far enough to name a host.
 */
export interface ProxyRefusal {
  readonly host: string;
  /** The requested port, or `null` when none could be read. */
  readonly port: number | null;
  readonly reason: ProxyRefusalReason;
  /**
   * `connect` for an HTTPS tunnel, `http` for a plain request, `unreadable` when the request
   * head could not be parsed (malformed, too large) so its kind is unknown.
   */
  readonly kind: "connect" | "http" | "unreadable";
}

/** The HTTP status each refusal is answered with. */
export const REFUSAL_STATUS: Readonly<Record<ProxyRefusalReason, number>> = {
  not_allowed: 403,
  bad_name: 403,
  ip_literal: 403,
  userinfo: 403,
  host_mismatch: 403,
  blocked_address: 403,
  resolve_failed: 403,
  bad_request: 400,
  header_too_large: 431,
  too_many_tunnels: 503,
};

const REFUSAL_TEXT: Readonly<Record<ProxyRefusalReason, string>> = {
  not_allowed: "this host and port are not in the skill's skillgate.allowed-domains",
  bad_name: "the requested name is not a valid host name",
  ip_literal: "IP addresses are refused; skillgate.allowed-domains names hosts",
  userinfo: "a user name in the address is refused",
  host_mismatch: "the Host header does not match the requested host and port",
  blocked_address: "the host resolves to a local, private or metadata address",
  resolve_failed: "the host name did not resolve",
  bad_request: "this is not a valid proxy request",
  header_too_large: "the request header is too large",
  too_many_tunnels: "too many connections are open through the proxy",
};

const MAX_REPORTED_HOST_CHARS = 256;

/**
 * The requested host as safe text: control characters and non-ASCII escaped as `\uXXXX`,
 * clipped to 256 characters, so a hostile name cannot forge audit lines or terminal output.
 */
export function printableHost(raw: string): string {
  const clipped = raw.length > MAX_REPORTED_HOST_CHARS ? raw.slice(0, MAX_REPORTED_HOST_CHARS) : raw;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
  return clipped.replace(/[\u0000-\u001f\u007f-\uffff]/g, (char) => {
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** The `HOST:` text a refused script sees as the response body. */
export function refusalText(refusal: ProxyRefusal): string {
  const target = refusal.host === "" ? "the request" : `${refusal.host}${portSuffix(refusal.port)}`;
  return `HOST: the skillgate network proxy refused ${target} (${refusal.reason}): ${REFUSAL_TEXT[refusal.reason]}.\n`;
}

function portSuffix(port: number | null): string {
  return port === null ? "" : `:${port}`;
}
