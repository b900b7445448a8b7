import type { HttpBindings } from "@hono/node-server";
import { Hono } from "hono";
import type { McpHttpSessions } from "../mcp/http-sessions.js";
import { agentRoutes } from "./agent-routes.js";
import { apiError, errorResponse } from "./api-error.js";
import { createApiApp } from "./app.js";
import { EVENTS_PATH, type EventStreams } from "./events-route.js";
import { mcpRoutes } from "./mcp-route.js";
import type { AllowedHosts } from "./security/allowed-hosts.js";
import { type OwnerCheck, requireOwner } from "./security/authenticate.js";
import { loginRoutes } from "./security/login.js";
import { requestGuard } from "./security/request-guard.js";
import { securityHeaders } from "./security/secure-headers.js";
import type { ServerContext } from "./server-context.js";
import { staticUiRoutes } from "./static-ui.js";

/** What the whole server's app is made of; {@link startServer} (server.ts) builds these. */
export interface ServerAppParts {
  readonly context: ServerContext;
  readonly check: OwnerCheck;
  readonly allowed: AllowedHosts;
  readonly sessions: McpHttpSessions;
  readonly streams: EventStreams;
  readonly uiFolder: string;
  /** Counts API requests in flight, so a stop can let them finish. */
  readonly requests: RequestTracker;
}

/** API requests in flight, and whether the server has begun to stop. */
export interface RequestTracker {
  readonly stopping: boolean;
  begin(): void;
  end(): void;
}

/**
 * The one app of `skillgate serve`, in the order a request meets it: refused with 503 once the
 * server is stopping; security headers; the Host, query-token, Origin and CSRF checks
 * (security/request-guard.ts); the login link; `/mcp` (bearer token); the node agents' routes
 * (`/agent/v1/…`, node credentials only, never the owner's; agent-routes.ts); every `/api` route behind
 * the owner's token or session cookie, `/api/events` among them; the built UI for every other
 * page. docs/server.md describes each.
 */
export function createServerApp(parts: ServerAppParts): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.use("*", async (c, next) => {
    if (!parts.requests.stopping) return next();
    c.header("Connection", "close");
    return apiError(c, 503, "server_stopping", "the server is stopping");
  });
  app.use("*", securityHeaders());
  app.use("*", requestGuard(parts.allowed));
  app.route("/", loginRoutes(parts.check));
  app.route("/", mcpRoutes(parts.sessions, parts.check));
  // Before the owner's check and apart from it: a node credential is never the owner's.
  if (parts.context.nodes !== undefined)
    app.route("/", agentRoutes(parts.context.nodes, parts.check.attempts));
  app.use("/api/*", requireOwner(parts.check, { cookie: true }));
  app.use("/api/*", async (c, next) => {
    // A live-update stream stays open for the page's life: a stop ends it instead of waiting.
    if (c.req.path === EVENTS_PATH) return next();
    parts.requests.begin();
    try {
      await next();
    } finally {
      parts.requests.end();
    }
  });
  app.route("/", parts.streams.routes);
  app.route("/api", createApiApp(parts.context));
  app.route("/", staticUiRoutes(parts.uiFolder));
  app.notFound((c) =>
    c.req.path.startsWith("/api/") || c.req.path === "/api"
      ? apiError(c, 404, "not_found", `no API route ${c.req.method} ${c.req.path}`)
      : c.text("not found", 404),
  );
  app.onError((error, c) => {
    parts.context.logger.warn("request failed", { error: error instanceof Error ? error.name : "unknown" });
    return errorResponse(c, error);
  });
  return app;
}
