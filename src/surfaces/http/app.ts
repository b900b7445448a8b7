import type { OpenAPIHono } from "@hono/zod-openapi";
import { approvalsRoutes } from "./routes/approvals.js";
import { auditRoutes } from "./routes/audit.js";
import { chatsRoutes } from "./routes/chats.js";
import { filesRoutes } from "./routes/files.js";
import { generationsRoutes } from "./routes/generations.js";
import { importRoutes } from "./routes/import.js";
import { nodesRoutes } from "./routes/nodes.js";
import { routeApp } from "./routes/owner-route-app.js";
import { queueRoutes } from "./routes/queue.js";
import { reviewRoutes } from "./routes/review.js";
import { runsRoutes } from "./routes/runs.js";
import { skillsRoutes } from "./routes/skills.js";
import type { ServerContext } from "./server-context.js";

/** The OpenAPI version and title of `/api/openapi.json`. */
const OPENAPI_INFO = { title: "skillgate HTTP API", version: "1" } as const;

/**
 * The `/api` application: every route module of `routes/` mounted here. A route module is a
 * function `(context: ServerContext) => OpenAPIHono` whose routes are declared with
 * `createRoute`, so the OpenAPI document is generated from the same schemas that validate
 * requests. A route parses, calls `src/app/` or `src/store/`, and answers; a thrown
 * SkillgateError becomes `{"error": {code, message, data}}` with its status (api-error.ts).
 * Security (token, Host, Origin, CSRF) is applied around this app by the server, not here.
 */
export function createApiApp(context: ServerContext): OpenAPIHono {
  const api = routeApp(context);
  // Route modules are mounted here, one line each.
  api.route("/", skillsRoutes(context));
  api.route("/", filesRoutes(context));
  api.route("/", importRoutes(context));
  api.route("/", reviewRoutes(context));
  api.route("/", approvalsRoutes(context));
  api.route("/", chatsRoutes(context));
  api.route("/", auditRoutes(context));
  api.route("/", runsRoutes(context));
  api.route("/", nodesRoutes(context));
  api.route("/", queueRoutes(context));
  api.route("/", generationsRoutes(context));
  api.doc31("/openapi.json", { openapi: "3.1.0", info: OPENAPI_INFO });
  return api;
}
