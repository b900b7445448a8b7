import { apiRequest } from "./client.js";

/**
 * Trades the owner's token for the session cookie (HttpOnly, SameSite=Strict): the token is
 * sent once in the body, never kept by the page.
 */
export function logIn(token: string): Promise<unknown> {
  return apiRequest("/login", { method: "POST", json: { token } });
}

/** Ends the session. */
export function logOut(): Promise<unknown> {
  return apiRequest("/logout", { method: "POST", json: {} });
}
