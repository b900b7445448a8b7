import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { chatIssues } from "../../../app/owner/chat-issues.js";
import { SkillgateError } from "../../../core/errors.js";
import { MAX_CHAT_LIST_LIMIT } from "../../../observe/chat-log.js";
import { MAX_TRANSCRIPT_CHARS } from "../../../observe/chat-transcript.js";
import type { ServerContext } from "../server-context.js";
import { errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";

/**
 * The chats routes (docs/http-api.md, "Chats and audit"): chats and jobs with their issue
 * counts (declined, expired, failed, timed out), and one chat's transcript.
 */
export function chatsRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);

  app.openapi(
    createRoute({
      method: "get",
      path: "/chats",
      summary: "Chats by latest activity, each with its declined, expired, failed and timed-out counts",
      request: {
        query: z.object({
          kind: z.enum(["chat", "job"]).optional(),
          owner: z.string().min(1).max(200).optional(),
          includeReviewed: BooleanQuery.optional(),
          withIssuesOnly: BooleanQuery.optional(),
          limit: z.coerce.number().int().min(1).max(MAX_CHAT_LIST_LIMIT).optional(),
        }),
      },
      responses: { 200: jsonAnswer("chats", ChatIssuesSchema), 400: errorAnswer("invalid_argument") },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const issues = await chatIssues(context.host.skillgate.chatLog(), {
        ...(query.kind !== undefined ? { kind: query.kind } : {}),
        ...(query.owner !== undefined ? { owner: query.owner } : {}),
        ...(query.includeReviewed !== undefined ? { includeReviewed: query.includeReviewed === "true" } : {}),
        ...(query.withIssuesOnly !== undefined ? { withIssuesOnly: query.withIssuesOnly === "true" } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
      });
      return c.json(issues, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/chats/{id}/transcript",
      summary: "A chat's (or job's) transcript from its first message, within a character budget",
      request: {
        params: z.object({ id: z.string().min(1).max(200) }),
        query: z.object({
          kind: z.enum(["chat", "job"]).optional(),
          maxChars: z.coerce.number().int().min(1).max(MAX_TRANSCRIPT_CHARS).optional(),
        }),
      },
      responses: {
        200: jsonAnswer("the transcript", TranscriptSchema),
        400: errorAnswer("invalid_argument"),
        404: errorAnswer("not_found"),
      },
    }),
    (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      const kind = query.kind ?? "chat";
      const transcript = context.host.skillgate
        .chatLog()
        .readTranscript({ kind, id }, query.maxChars !== undefined ? { maxChars: query.maxChars } : {});
      if (transcript === undefined)
        throw new SkillgateError("not_found", `no ${kind} ${id} is in the chat log`, { kind, id });
      return c.json(transcript, 200);
    },
  );

  return app;
}

/** `true` or `false` in a query string. */
const BooleanQuery = z.enum(["true", "false"]);

const CountsSchema = z.object({
  declined: z.number(),
  expired: z.number(),
  failed: z.number(),
  timedOut: z.number(),
});

const ChatIssuesSchema = z
  .object({
    chats: z
      .array(
        z.object({
          kind: z.enum(["chat", "job"]),
          id: z.string(),
          title: z.string(),
          owner: z.string().optional(),
          created: z.string(),
          updated: z.string(),
          counts: CountsSchema,
          issues: z.number(),
          reviewed: z.boolean(),
        }),
      )
      .readonly(),
    totals: CountsSchema,
    withIssues: z.number(),
  })
  .openapi("ChatIssues");

const TranscriptSchema = z
  .object({
    chat: z.object({ kind: z.enum(["chat", "job"]), id: z.string() }),
    messages: z
      .array(z.object({ role: z.string(), text: z.string(), time: z.string(), clippedChars: z.number() }))
      .readonly(),
    totalMessages: z.number(),
    totalChars: z.number(),
    shownChars: z.number(),
    clipped: z.boolean(),
    note: z.string().optional(),
  })
  .openapi("Transcript");
