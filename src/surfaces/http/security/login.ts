import type { HttpBindings } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { apiError } from "../api-error.js";
import { clientAddress, type OwnerCheck, tooManyAttempts, unauthorized } from "./authenticate.js";
import { isOwnerToken } from "./owner-token.js";
import { makeSessionValue, SESSION_LIFETIME_MS, sessionCookieName } from "./session-cookie.js";

/** The login link's path: `/login?token=TOKEN`. */
export const LOGIN_PATH = "/login";

/** The web UI's own login: `{"token"}` in a JSON body. */
export const API_LOGIN_PATH = "/api/login";

/** Clears the session cookie. */
export const API_LOGOUT_PATH = "/api/logout";

/**
 * The browser's way in. `GET /login?token=TOKEN` (the printed login link) checks the token,
 * sets the session cookie (HttpOnly, SameSite=Strict, bound to this port; `Secure` behind a
 * TLS proxy that says so) and answers 303 to `/`, so the token leaves the address bar and the
 * history entry. A wrong token is a failed login (rate-limited, 401); `/login` without a token
 * is a form asking for it. The UI's login page sends `POST /api/login` with `{"token"}` instead
 * (204 and the cookie, or 401 / 429 as for a bearer token); `POST /api/logout` clears the
 * cookie (204). Both are mounted before the owner check on `/api`; the request guard's Origin
 * and CSRF checks apply to them as to every state-changing request.
 */
export function loginRoutes(check: OwnerCheck): Hono<{ Bindings: HttpBindings }> {
  const routes = new Hono<{ Bindings: HttpBindings }>();
  routes.get(LOGIN_PATH, (c) => {
    c.header("Cache-Control", "no-store");
    const token = c.req.query("token");
    if (token === undefined || token === "") return c.html(loginPage(""));
    const client = clientAddress(c);
    const waitMs = check.attempts.retryAfterMs(client);
    if (waitMs > 0) return tooManyAttempts(c, waitMs);
    if (!isOwnerToken(check.owner, token)) {
      check.attempts.recordFailure(client);
      return c.html(loginPage("That token is not the owner's."), 401);
    }
    startSession(c, check);
    return c.redirect("/", 303);
  });
  routes.post(API_LOGIN_PATH, async (c) => {
    c.header("Cache-Control", "no-store");
    const client = clientAddress(c);
    const waitMs = check.attempts.retryAfterMs(client);
    if (waitMs > 0) return tooManyAttempts(c, waitMs);
    const body = (await c.req.json().catch(() => undefined)) as { token?: unknown } | undefined;
    if (typeof body?.token !== "string" || body.token === "")
      return apiError(c, 400, "invalid_argument", 'the body must be {"token": "…"}', { argument: "token" });
    if (!isOwnerToken(check.owner, body.token)) {
      check.attempts.recordFailure(client);
      return unauthorized(c, "that token is not the owner's");
    }
    startSession(c, check);
    return c.body(null, 204);
  });
  routes.post(API_LOGOUT_PATH, (c) => {
    deleteCookie(c, sessionCookieName(check.port), { path: "/" });
    return c.body(null, 204);
  });
  return routes;
}

/** Sets the session cookie on the answer. */
function startSession(c: Context, check: OwnerCheck): void {
  setCookie(
    c,
    sessionCookieName(check.port),
    makeSessionValue(check.owner.digest, check.port, Date.now() + SESSION_LIFETIME_MS),
    {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      maxAge: SESSION_LIFETIME_MS / 1000,
      secure: c.req.header("x-forwarded-proto") === "https",
    },
  );
}

/** A form that sends the token to the login link (the token then leaves the address bar the same way). */
function loginPage(problem: string) {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>skillgate: log in</title></head>
<body>
<main>
<h1>Log in to skillgate</h1>
${problem === "" ? "" : html`<p role="alert">${problem}</p>`}
<p>Open the login link <code>skillgate serve</code> printed, or paste the owner's token.</p>
<form method="get" action="${LOGIN_PATH}">
<label for="token">Owner token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
</main>
</body>
</html>`;
}
