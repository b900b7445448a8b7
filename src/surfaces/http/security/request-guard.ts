import type { MiddlewareHandler } from "hono";
import { apiError } from "../api-error.js";
import { type AllowedHosts, isAllowedAuthority } from "./allowed-hosts.js";

/** The header every state-changing request must carry (docs/server.md, "What every request needs"). */
export const CSRF_HEADER = "X-Skillgate-CSRF";

/** Query parameters that look like a credential: refused on API routes, where they would be logged. */
const CREDENTIAL_PARAMETERS = ["token", "access_token", "auth"];

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The checks before authentication, in order, each with its own status:
 * 1. `Host` names this server (400 `host_missing`, 403 `host_not_allowed`): DNS rebinding.
 * 2. On `/api`, no credential in the query string (400 `token_in_query`).
 * 3. A state-changing request (and every `/mcp` request) whose `Origin` is sent names this
 *    server, and none says it comes from another site (403 `origin_not_allowed`).
 * 4. A state-changing request outside `/mcp` and `/agent` carries `X-Skillgate-CSRF` (403
 *    `csrf_missing`): a custom header cannot be sent cross-site without a CORS preflight, which
 *    this server never grants. `/mcp` and the node agents' routes (`/agent/…`) take only a bearer
 *    credential, never the cookie, so they need no such header.
 */
export function requestGuard(allowed: AllowedHosts): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (host === undefined || host.trim() === "")
      return apiError(c, 400, "host_missing", "the request has no Host header");
    if (!isAllowedAuthority(allowed, host))
      return apiError(c, 403, "host_not_allowed", "the Host header does not name this server", { host });
    const path = c.req.path;
    const isApi = path === "/api" || path.startsWith("/api/");
    const isMcp = path === "/mcp";
    const isAgent = path.startsWith("/agent/");
    if (isApi) {
      const query = new URL(c.req.url).searchParams;
      if (CREDENTIAL_PARAMETERS.some((name) => query.has(name)))
        return apiError(
          c,
          400,
          "token_in_query",
          "a token in the address is refused on the API; send Authorization: Bearer TOKEN",
        );
    }
    const changesState = !SAFE_METHODS.has(c.req.method);
    if (
      (changesState || isMcp) &&
      !sameSite(c.req.header("origin"), c.req.header("sec-fetch-site"), host, allowed)
    )
      return apiError(c, 403, "origin_not_allowed", "the request comes from another site");
    if (changesState && !isMcp && !isAgent && c.req.header(CSRF_HEADER) === undefined)
      return apiError(c, 403, "csrf_missing", `a state-changing request needs the ${CSRF_HEADER} header`);
    return next();
  };
}

/** No Origin (a non-browser client) or one naming this server, and no cross-site fetch metadata. */
function sameSite(
  origin: string | undefined,
  fetchSite: string | undefined,
  host: string,
  allowed: AllowedHosts,
): boolean {
  if (fetchSite === "cross-site" || fetchSite === "same-site") return false;
  if (origin === undefined) return true;
  let originHost: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    originHost = url.host;
  } catch {
    return false;
  }
  return originHost.toLowerCase() === host.trim().toLowerCase() || isAllowedAuthority(allowed, originHost);
}
