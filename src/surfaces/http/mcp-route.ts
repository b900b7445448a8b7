import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import { MCP_HTTP_PATH } from "../mcp/http.js";
import type { McpHttpSessions } from "../mcp/http-sessions.js";
import { type OwnerCheck, requireOwner } from "./security/authenticate.js";

/**
 * `/mcp`: MCP's Streamable HTTP endpoint, the same sessions as `skillgate mcp --http` (the
 * requests go to the same {@link McpHttpSessions}), authenticated by the owner's bearer token
 * only (an MCP client sends headers, never the browser's cookie). The transport writes the
 * Node response itself, so Hono is told the answer is already sent.
 */
export function mcpRoutes(sessions: McpHttpSessions, check: OwnerCheck): Hono<{ Bindings: HttpBindings }> {
  const routes = new Hono<{ Bindings: HttpBindings }>();
  routes.all(MCP_HTTP_PATH, requireOwner(check, { cookie: false }), async (c) => {
    await sessions.handle(c.env.incoming, c.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  });
  return routes;
}
