import { OpenAPIHono, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { isSkillgateError } from "../../../core/errors.js";
import { apiError, errorResponse } from "../api-error.js";
import type { ServerContext } from "../server-context.js";

/**
 * The app the `/api` app itself (app.ts) and each owner route module (review, approvals,
 * chats, audit) declare their routes on: one validation answer and one error answer for all.
 * A request that does not match a route's schema is answered here, before any handler runs,
 * with the API's error body: `invalid_argument` (400) and the schema's issues; a body that
 * is not JSON is `unsupported_media_type` (415) or `invalid_json` (400), as everywhere in the API. Its own `defaultHook`
 * and `onError` are needed because a mounted module validates and fails with its own app's.
 */
export function routeApp(context: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (result.success) return undefined;
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
    },
  });
  app.onError((error, c) => {
    // Hono's own refusals of a body (a media type the route does not take, JSON that does not parse).
    if (error instanceof HTTPException) {
      return error.status === 415
        ? apiError(c, 415, "unsupported_media_type", "the body must be JSON (content-type: application/json)")
        : apiError(
            c,
            error.status < 500 ? (error.status as ContentfulStatusCode) : 400,
            "invalid_json",
            error.message,
          );
    }
    if (!isSkillgateError(error))
      context.logger.warn("request failed", { error: error instanceof Error ? error.name : "unknown" });
    return errorResponse(c, error);
  });
  return app;
}

/** The API's error body, for the OpenAPI document. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
  })
  .openapi("ApiError");

/** An error answer of a route, for its `responses`. */
export function errorAnswer(description: string) {
  return { description, content: { "application/json": { schema: ErrorBodySchema } } } as const;
}

/** A JSON answer of a route, for its `responses`. */
export function jsonAnswer<Schema extends z.ZodType>(description: string, schema: Schema) {
  return { description, content: { "application/json": { schema } } } as const;
}

/** A content hash as the store writes it: 64 lower-case hex digits. */
export const ContentHashSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "a content hash: 64 lower-case hex digits");

/** The body of a request that carries no fields: `{}` or nothing; unknown fields are refused. */
export const EmptyBodySchema = z.object({}).strict();
