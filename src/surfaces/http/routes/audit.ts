import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { auditPage, MAX_AUDIT_PAGE_LIMIT } from "../../../app/owner/audit-page.js";
import type { ServerContext } from "../server-context.js";
import { errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";

/**
 * The audit route (docs/http-api.md, "Chats and audit"): the audit trail newest first, by
 * skill, chat and time, a bounded page at a time with a cursor to the next.
 */
export function auditRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  app.openapi(
    createRoute({
      method: "get",
      path: "/audit",
      summary: "Audit events newest first, filtered by skill, chat and time, paged by cursor",
      request: {
        query: z.object({
          skill: z.string().min(1).max(200).optional(),
          chat: z.string().min(1).max(200).optional(),
          since: z
            .string()
            .max(64)
            .refine((text) => Number.isFinite(Date.parse(text)), "since must be an ISO date and time")
            .optional(),
          cursor: z.string().max(64).optional(),
          limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE_LIMIT).optional(),
        }),
      },
      responses: {
        200: jsonAnswer("a page of events", AuditPageSchema),
        400: errorAnswer("invalid_argument"),
      },
    }),
    (c) => {
      const query = c.req.valid("query");
      const page = auditPage(context.host.skillgate.catalog.folders.data, {
        ...(query.skill !== undefined ? { skill: query.skill } : {}),
        ...(query.chat !== undefined ? { chat: query.chat } : {}),
        ...(query.since !== undefined ? { since: query.since } : {}),
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
      });
      return c.json(page, 200);
    },
  );
  return app;
}

const AuditEventSchema = z
  .object({
    type: z.string(),
    time: z.string(),
    requestId: z.string(),
    scope: z.object({ kind: z.enum(["chat", "job"]), id: z.string() }),
    tool: z.string(),
    tier: z.string(),
    skill: z.string().optional(),
    hash8: z.string().optional(),
    rule: z.string().optional(),
    decision: z.enum(["allow", "ask", "deny"]).optional(),
    answer: z.string().optional(),
    status: z.string().optional(),
    latencyMs: z.number().optional(),
    errorKind: z.string().optional(),
    host: z.string().optional(),
    port: z.number().optional(),
    limits: z.string().optional(),
  })
  .openapi("AuditEvent");

const AuditPageSchema = z
  .object({ events: z.array(AuditEventSchema).readonly(), next: z.string().optional() })
  .openapi("AuditPage");
