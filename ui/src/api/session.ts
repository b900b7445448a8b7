import { apiRequest } from "./client.js";

/**
 * The session. The browser signs in through the printed login link (`GET /login?token=…`), or
 * through the login page, which sends the token once in a request body (`POST /api/login`); both
 * set the HttpOnly, SameSite=Strict session cookie. The page never keeps the token.
 */

/** Trades the owner's token for the session cookie: 204, or 401 `unauthorized`, 429 `too_many_attempts`. */
export function logIn(token: string): Promise<void> {
  return apiRequest("/login", { method: "POST", json: { token } });
}

/** Ends the session in this browser (`POST /api/logout` clears the cookie). */
export function logOut(): Promise<void> {
  return apiRequest("/logout", { method: "POST", json: {} });
}
