import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { watchApprovals } from "../../../app/owner/approval-watch.js";
import { answerApproval } from "../../../app/owner/plan-decisions.js";
import type { OwnerAnswer } from "../../../policy/approval-queue.js";
import type { ServerContext } from "../server-context.js";
import { errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";
import { ownerDecisions, publishReviewCount } from "./review.js";

/**
 * The asks routes (docs/http-api.md, "Asks"): the approval queue in the data folder, the
 * same one `skillgate approvals | approve | decline` answers, so an ask is answered exactly
 * once across the server, the CLI and any other process on the folder.
 */
export function approvalsRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  publishQueueChanges(context);

  app.openapi(
    createRoute({
      method: "get",
      path: "/approvals",
      summary: "The approval requests waiting for the owner, oldest first",
      responses: {
        200: jsonAnswer("waiting requests", z.object({ approvals: z.array(ApprovalSchema).readonly() })),
      },
    }),
    (c) => c.json({ approvals: ownerDecisions(context).approvals.pending() }, 200),
  );

  const answerRoute = (answer: "approve" | "decline") =>
    createRoute({
      method: "post",
      path: `/approvals/{id}/${answer}`,
      summary:
        answer === "approve"
          ? 'Approve a request: once, or {"always": true} for the chat (never offered for edit_skill)'
          : "Decline a request: the model's next identical call is refused; an edit's plan is removed",
      request: {
        params: z.object({
          id: z.string().max(200).openapi({ description: "the request id: a lower-case UUID" }),
        }),
        body: {
          content: {
            "application/json": { schema: answer === "approve" ? ApproveBodySchema : DeclineBodySchema },
          },
          required: false,
        },
      },
      responses: {
        200: jsonAnswer("answered", AnsweredSchema),
        400: errorAnswer("invalid_argument, approval_answer_not_offered"),
        404: errorAnswer("approval_not_found"),
        409: errorAnswer("approval_already_answered, approval_settled"),
        410: errorAnswer("approval_expired"),
      },
    });

  app.openapi(answerRoute("approve"), async (c) => {
    const body: { always?: boolean } = c.req.valid("json");
    return c.json(
      await answer(context, c.req.valid("param").id, body.always === true ? "always" : "once"),
      200,
    );
  });
  app.openapi(answerRoute("decline"), async (c) => {
    return c.json(await answer(context, c.req.valid("param").id, "decline"), 200);
  });
  return app;
}

/**
 * Asks queued and answered by anyone on the data folder (this server's MCP sessions, the
 * CLI, another process) as `approval-requested` and `approval-settled` events. One watch
 * per context, however many times the routes are mounted; it ends with the process.
 */
export function publishQueueChanges(context: ServerContext): void {
  if (watched.has(context)) return;
  watched.add(context);
  try {
    watchApprovals(ownerDecisions(context).approvals, (change) => {
      for (const request of change.added)
        context.events.publish({ type: "approval-requested", id: request.id });
      for (const id of change.removed)
        context.events.publish({ type: "approval-settled", id, answer: "gone" });
    });
  } catch (error) {
    // The queue's folder is not a real folder: answering refuses with path_not_allowed; no live events.
    context.logger.warn("approval events are off", {
      error: error instanceof Error ? error.name : "unknown",
    });
  }
}

const watched = new WeakSet<ServerContext>();

async function answer(context: ServerContext, id: string, given: OwnerAnswer) {
  const result = await answerApproval(ownerDecisions(context), id, given);
  context.events.publish({ type: "approval-settled", id, answer: result.answer });
  for (const request of result.settled)
    context.events.publish({ type: "approval-settled", id: request.id, answer: "plan-rejected" });
  if (result.rejectedPlan !== undefined) await publishReviewCount(context);
  return {
    request: result.request,
    answer: result.answer,
    answeredAt: result.answeredAt,
    ...(result.rejectedPlan !== undefined ? { rejectedPlan: result.rejectedPlan } : {}),
    settledApprovals: result.settled.map((request) => request.id),
  };
}

const ApproveBodySchema = z.object({ always: z.boolean().optional() }).strict();
const DeclineBodySchema = z.object({}).strict();

const ApprovalSchema = z
  .object({
    id: z.string(),
    tool: z.string(),
    tier: z.string(),
    scope: z.object({ kind: z.enum(["chat", "job"]), id: z.string() }),
    summary: z.string(),
    skill: z.string().optional(),
    hash: z.string().optional(),
    grant: z.string().optional(),
    warning: z.string().optional(),
    detail: z.string().optional(),
    reference: z.string().optional(),
    inputDigest: z.string().optional(),
    rule: z.string().optional(),
    arguments: z.string().optional(),
    options: z.array(z.enum(["once", "always-chat", "always-job", "decline"])).readonly(),
    createdAt: z.number(),
    expiresAt: z.number(),
  })
  .openapi("ApprovalRequest");

const AnsweredSchema = z.object({
  request: ApprovalSchema,
  answer: z.enum(["once", "always-chat", "always-job", "decline"]),
  answeredAt: z.number(),
  rejectedPlan: z.string().optional(),
  settledApprovals: z.array(z.string()).readonly(),
});
