import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  approvePlan,
  checkPlanHash,
  type OwnerDecisions,
  rejectPlan,
} from "../../../app/owner/plan-decisions.js";
import { reviewQueue } from "../../../app/owner/review-queue.js";
import { ApprovalQueue } from "../../../policy/approval-queue.js";
import { getPlan } from "../../../store/edits/index.js";
import { skillReviews } from "../../../store/reviews.js";
import type { ServerContext } from "../server-context.js";
import { ContentHashSchema, errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";

/**
 * The review routes (docs/http-api.md, "Review"): what waits for the owner (drafts and edit
 * plans, the Needs review count), a plan with its diff, approving or rejecting a plan by the
 * hash it gives, and the reviewed chats of `skill-reviews.json`. Saved drafts and applied
 * edits from any door of this process (these routes, the model's tools over MCP) become
 * `draft-created`, `plan-applied` and `review-changed` events.
 */
export function reviewRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  const decisions = (): OwnerDecisions => ownerDecisions(context);
  publishAuthoring(context);

  app.openapi(
    createRoute({
      method: "get",
      path: "/review",
      summary: "What waits for the owner's review: drafts, edit plans and the Needs review count",
      responses: { 200: jsonAnswer("the review queue", ReviewQueueSchema), 503: errorAnswer("store_busy") },
    }),
    async (c) => c.json(await reviewQueue(context.store), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/plans/{id}",
      summary: "An edit plan whole: what it writes, its diff, its review lint",
      request: { params: PlanParams },
      responses: {
        200: jsonAnswer("the plan", PlanSchema),
        404: errorAnswer("plan_not_found"),
        410: errorAnswer("plan_expired"),
      },
    }),
    async (c) => c.json(await getPlan(context.store, c.req.valid("param").id), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/plans/{id}/approve",
      summary: "Apply an edit plan exactly as shown, named by the hash it gives",
      request: {
        params: PlanParams,
        body: { content: { "application/json": { schema: PlanDecisionSchema } }, required: true },
      },
      responses: {
        200: jsonAnswer("applied", PlanAppliedSchema),
        404: errorAnswer("plan_not_found"),
        409: errorAnswer(
          "skill_changed: the hash is not the plan's, or the skill moved since the plan was made",
        ),
        410: errorAnswer("plan_expired"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await checkPlanHash(decisions(), id, c.req.valid("json").hash);
      const applied = await approvePlan(decisions(), id);
      await publishReviewCount(context);
      for (const request of applied.settled)
        context.events.publish({ type: "approval-settled", id: request.id, answer: "plan-applied" });
      return c.json(
        {
          plan: applied.plan.id,
          skill: applied.plan.skill,
          hash: applied.result.hash,
          revision: applied.result.revision,
          settledApprovals: applied.settled.map((request) => request.id),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/plans/{id}/reject",
      summary: "Reject an edit plan, named by the hash it gives: it can never be applied",
      request: {
        params: PlanParams,
        body: { content: { "application/json": { schema: PlanDecisionSchema } }, required: true },
      },
      responses: {
        200: jsonAnswer("rejected", PlanRejectedSchema),
        404: errorAnswer("plan_not_found"),
        409: errorAnswer("skill_changed: the hash is not the plan's"),
        410: errorAnswer("plan_expired"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await checkPlanHash(decisions(), id, c.req.valid("json").hash);
      const rejected = await rejectPlan(decisions(), id);
      await publishReviewCount(context);
      for (const request of rejected.settled)
        context.events.publish({ type: "approval-settled", id: request.id, answer: "plan-rejected" });
      return c.json(
        {
          plan: rejected.plan.id,
          skill: rejected.plan.skill,
          rejected: true as const,
          settledApprovals: rejected.settled.map((request) => request.id),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/review/chats",
      summary: "The chats an owner has marked reviewed for skill ideas, oldest first",
      request: { query: z.object({ owner: OwnerSchema.optional() }) },
      responses: {
        200: jsonAnswer("reviewed chats", ReviewedChatsSchema),
        500: errorAnswer("store_corrupt"),
      },
    }),
    async (c) => {
      const owner = c.req.valid("query").owner ?? DEFAULT_OWNER;
      return c.json({ owner, chats: await skillReviews(context.store).reviewedChats(owner) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/review/chats",
      summary: "Mark chats reviewed (at most 2,000 kept per owner; the oldest are dropped)",
      request: { body: { content: { "application/json": { schema: MarkChatsSchema } }, required: true } },
      responses: {
        200: jsonAnswer("marked", z.object({ owner: z.string(), marked: z.number(), dropped: z.number() })),
        400: errorAnswer("invalid_argument"),
        503: errorAnswer("store_busy"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const owner = body.owner ?? DEFAULT_OWNER;
      const result = await skillReviews(context.store).markChatsReviewed(owner, body.chats);
      return c.json({ owner, ...result }, 200);
    },
  );

  return app;
}

/** The owner the reviews are kept for when a request names none: the Skillgate's default owner. */
const DEFAULT_OWNER = "owner";

/** What the owner's decisions work on in this server. */
export function ownerDecisions(context: ServerContext): OwnerDecisions {
  return {
    store: () => Promise.resolve(context.store),
    approvals: ApprovalQueue.open({ dataFolder: context.host.skillgate.catalog.folders.data }),
    authoring: context.host.skillgate.authoring,
  };
}

/** Publishes the Needs review count as it is now. */
export async function publishReviewCount(context: ServerContext): Promise<void> {
  try {
    const { needsReview } = await reviewQueue(context.store);
    context.events.publish({ type: "review-changed", needsReview });
  } catch (error) {
    context.logger.warn("review count not published", {
      error: error instanceof Error ? error.name : "unknown",
    });
  }
}

/**
 * Saved drafts and applied edits, from any door of this process, as live events. Subscribed
 * once per context, however many times the routes are mounted.
 */
function publishAuthoring(context: ServerContext): void {
  if (subscribed.has(context)) return;
  subscribed.add(context);
  context.host.skillgate.authoring.subscribe((notice) => {
    if (notice.kind === "draft-saved") context.events.publish({ type: "draft-created", name: notice.skill });
    else context.events.publish({ type: "plan-applied", id: notice.plan, name: notice.skill });
    void publishReviewCount(context);
  });
}

const subscribed = new WeakSet<ServerContext>();

const PlanParams = z.object({
  id: z.string().max(200).openapi({ description: "the plan id: 32 hex digits" }),
});

const PlanDecisionSchema = z
  .object({ hash: ContentHashSchema.openapi({ description: "the plan's resultHash, as the owner read it" }) })
  .strict();

const OwnerSchema = z.string().min(1).max(200);

const MarkChatsSchema = z
  .object({ owner: OwnerSchema.optional(), chats: z.array(z.string().min(1).max(200)).min(1).max(2000) })
  .strict();

const LintWarningSchema = z.object({
  rule: z.string(),
  file: z.string(),
  line: z.number(),
  message: z.string(),
});

const DraftSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    locked: z.boolean(),
    hash: z.string(),
    updated: z.string().optional(),
    author: z.string().optional(),
    sourceChats: z.array(z.string()).readonly(),
    rationale: z.string().optional(),
    reviewWarnings: z.string().optional(),
    lastEdit: z.string().optional(),
  })
  .openapi("Draft");

const PlanSummarySchema = z
  .object({
    id: z.string(),
    skill: z.string(),
    baseHash: z.string(),
    resultHash: z.string(),
    reason: z.string(),
    createdAt: z.string(),
    expiresAt: z.string(),
    writes: z.array(z.string()).readonly(),
    removes: z.array(z.string()).readonly(),
    diffTruncated: z.boolean(),
    warnings: z.number(),
  })
  .openapi("PlanSummary");

const ReviewQueueSchema = z
  .object({
    drafts: z.array(DraftSchema).readonly(),
    plans: z.array(PlanSummarySchema).readonly(),
    needsReview: z.number(),
  })
  .openapi("ReviewQueue");

const PlanSchema = z
  .object({
    id: z.string(),
    skill: z.string(),
    baseHash: z.string(),
    resultHash: z.string(),
    changes: z.object({
      write: z.record(z.string(), z.string()).readonly(),
      remove: z.array(z.string()).readonly(),
    }),
    request: z.object({
      skillName: z.string(),
      files: z.record(z.string(), z.string()).readonly(),
      removeFiles: z.array(z.string()).readonly(),
      description: z.string().optional(),
      tier: z.string().optional(),
      execution: z.string().optional(),
      allowedDomains: z.array(z.string()).readonly().optional(),
      parametersSchema: z.string().optional(),
      reason: z.string(),
    }),
    createdAt: z.string(),
    expiresAt: z.string(),
    diff: z.string(),
    diffTruncated: z.boolean(),
    warnings: z.array(LintWarningSchema).readonly(),
  })
  .openapi("EditPlan");

const PlanAppliedSchema = z.object({
  plan: z.string(),
  skill: z.string(),
  hash: z.string(),
  revision: z.number(),
  settledApprovals: z.array(z.string()).readonly(),
});

const PlanRejectedSchema = z.object({
  plan: z.string(),
  skill: z.string(),
  rejected: z.literal(true),
  settledApprovals: z.array(z.string()).readonly(),
});

const ReviewedChatsSchema = z.object({
  owner: z.string(),
  chats: z.array(z.object({ chat: z.string(), reviewed: z.string() })).readonly(),
});
