import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { apiError, errorResponse } from "./api-error.js";
import { filesRoutes } from "./routes/files.js";
import { importRoutes } from "./routes/import.js";
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
  const api = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        return c.json(
          {
            error: {
              code: "invalid_argument",
              message: "the request does not match the route's schema",
              data: {
                issues: result.error.issues.map((issue) => ({
                  path: issue.path.join("."),
                  message: issue.message,
                })),
              },
            },
          },
          400,
        );
      }
      return undefined;
    },
  });
  api.onError((error, c) => {
    // Hono's own refusals of a request body: JSON that does not parse, a body of a type the
    // route does not take. They are the client's, answered with their status, not a 500.
    if (error instanceof HTTPException && error.status < 500)
      return apiError(
        c,
        error.status,
        error.status === 415 ? "unsupported_media_type" : "invalid_json",
        error.status === 415 ? "the body's Content-Type is not one this route takes" : error.message,
      );
    if (!(error instanceof Error) || !("code" in error)) {
      context.logger.warn("request failed", { error: error instanceof Error ? error.name : "unknown" });
    }
    return errorResponse(c, error);
  });
  // Route modules are mounted here, one line each.
  api.route("/", skillsRoutes(context));
  api.route("/", filesRoutes(context));
  api.route("/", importRoutes(context));
  api.doc31("/openapi.json", { openapi: "3.1.0", info: OPENAPI_INFO });
  return api;
}
