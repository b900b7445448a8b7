import { CSRF_HEADER } from "./client.js";

/**
 * The session: the browser signs in through the server's login link (`GET /login?token=…`,
 * which sets the HttpOnly, SameSite=Strict session cookie and redirects to `/`, so the token
 * leaves the address bar). The page never holds the token; it only ends the session.
 */

/** Where the sign-in form sends the token. */
export const LOGIN_PATH = "/login";

/** Ends the session (`POST /logout` clears the cookie). */
export async function logOut(): Promise<void> {
  await fetch("/logout", { method: "POST", headers: { [CSRF_HEADER]: "1" }, credentials: "same-origin" });
}
