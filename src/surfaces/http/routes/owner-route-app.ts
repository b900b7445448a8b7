import { OpenAPIHono, z } from "@hono/zod-openapi";

/**
 * The app each owner route module (review, approvals, chats, audit) declares its routes on.
 * A request that does not match a route's schema is answered here, before any handler runs,
 * with the API's error body: `invalid_argument` (400) and the schema's issues. Its own
 * `defaultHook` is needed because a mounted module validates with its own app's hook.
 */
export function ownerRouteApp(): OpenAPIHono {
  return new OpenAPIHono({
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
