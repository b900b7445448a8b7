import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a browser stays logged in: seven days. */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The session cookie's name. It carries the port because browsers send a host's cookies to
 * every port of that host: two servers on one machine never read each other's cookie.
 */
export function sessionCookieName(port: number): string {
  return `skillgate_session_${port}`;
}

/**
 * A session cookie's value: `v1.EXPIRES.SIGNATURE`, the signature an HMAC-SHA256 of the port
 * and expiry keyed by the owner token's digest. Nothing is kept on the server, so a restart
 * keeps browsers logged in, a new owner token logs every browser out, and a cookie made for
 * another port (or by another server) does not verify.
 */
export function makeSessionValue(key: Buffer, port: number, expiresAt: number): string {
  return `v1.${expiresAt}.${signature(key, port, expiresAt)}`;
}

/** True when `value` is a cookie {@link makeSessionValue} made for this key and port, not expired at `now`. */
export function verifySessionValue(key: Buffer, port: number, value: string, now: number): boolean {
  const match = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (match === null) return false;
  const expiresAt = Number(match[1]);
  if (!(expiresAt > now)) return false;
  const expected = Buffer.from(signature(key, port, expiresAt));
  const given = Buffer.from(match[2] as string);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function signature(key: Buffer, port: number, expiresAt: number): string {
  return createHmac("sha256", key).update(`skillgate-session|${port}|${expiresAt}`).digest("base64url");
}
