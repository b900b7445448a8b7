import type { ProxyRefusal } from "./refusals.js";
import { parseAbsoluteUrl, parseAuthority } from "./target.js";

const REQUEST_LINE = /^([A-Z]{1,16}) ([^ \r\n]{1,8192}) HTTP\/1\.[01]\r?\n/;

/**
 * Names what was wrong with a request Node's HTTP parser refused, when the request line can
 * still be read from the bytes it saw: a NUL or a tab in the host makes the parser fail
 * before the proxy's own checks run, yet the audit log should say `bad_name`, not only
 * `bad_request`. Best effort: when the line cannot be read, or its target passes the name
 * checks (the fault is elsewhere), the refusal is `bad_request` of kind `unreadable`.
 */
export function refusalForUnparsed(rawPacket: unknown): ProxyRefusal {
  const fallback: ProxyRefusal = { host: "", port: null, reason: "bad_request", kind: "unreadable" };
  if (!Buffer.isBuffer(rawPacket)) return fallback;
  const line = REQUEST_LINE.exec(rawPacket.subarray(0, 8300).toString("utf8"));
  if (!line) return fallback;
  const [, method, target] = line as unknown as [string, string, string];
  if (method === "CONNECT") {
    const check = parseAuthority(target, 443);
    return check.ok
      ? fallback
      : { host: check.host, port: check.port, reason: check.reason, kind: "connect" };
  }
  const url = parseAbsoluteUrl(target);
  if (!url.ok) return fallback;
  const check = parseAuthority(url.authority, 80);
  return check.ok ? fallback : { host: check.host, port: check.port, reason: check.reason, kind: "http" };
}
