import type { HttpBindings } from "@hono/node-server";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { apiError } from "../api-error.js";
import type { LoginAttempts } from "./login-attempts.js";
import { isOwnerToken, type OwnerToken } from "./owner-token.js";
import { sessionCookieName, verifySessionValue } from "./session-cookie.js";

/** What {@link requireOwner} checks against. */
export interface OwnerCheck {
  readonly owner: OwnerToken;
  /** The port the server listens on: session cookies are bound to it. */
  readonly port: number;
  readonly attempts: LoginAttempts;
}

/** The address a request came from, for counting failed logins. */
export function clientAddress(c: Context<{ Bindings: HttpBindings }>): string {
  return c.env.incoming.socket.remoteAddress ?? "unknown";
}

/**
 * Lets a request through only when it is the owner's: `Authorization: Bearer TOKEN`, or (when
 * `cookie` is true, for `/api`) the session cookie the login link set. 401 `unauthorized` for
 * no credential, a wrong token, or a cookie that does not verify (expired, another port's,
 * another token's); 429 `too_many_attempts` with `Retry-After` once an address has failed too
 * often (login-attempts.ts). Only a wrong bearer token counts as a failed login: a missing or
 * stale cookie is a browser that has to log in again, not a guess.
 */
export function requireOwner(
  check: OwnerCheck,
  options: { cookie: boolean },
): MiddlewareHandler<{
  Bindings: HttpBindings;
}> {
  return async (c, next) => {
    const client = clientAddress(c);
    const waitMs = check.attempts.retryAfterMs(client);
    if (waitMs > 0) return tooManyAttempts(c, waitMs);
    const authorization = c.req.header("authorization");
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match !== null && isOwnerToken(check.owner, match[1] as string)) return next();
      check.attempts.recordFailure(client);
      return unauthorized(c, "the bearer token is not the owner's");
    }
    if (options.cookie) {
      const value = getCookie(c, sessionCookieName(check.port));
      if (value !== undefined && verifySessionValue(check.owner.digest, check.port, value, Date.now()))
        return next();
      if (value !== undefined) return unauthorized(c, "the session has ended; open the login link again");
    }
    return unauthorized(c, "log in: send Authorization: Bearer TOKEN, or open the login link in a browser");
  };
}

/** 401 with the challenge a client needs. */
export function unauthorized(c: Context, message: string): Response {
  c.header("WWW-Authenticate", 'Bearer realm="skillgate"');
  return apiError(c, 401, "unauthorized", message);
}

/** 429 with `Retry-After` in whole seconds. */
export function tooManyAttempts(c: Context, waitMs: number): Response {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  c.header("Retry-After", String(seconds));
  return apiError(c, 429, "too_many_attempts", `too many failed logins; try again in ${seconds} s`, {
    retryAfterSeconds: seconds,
  });
}
