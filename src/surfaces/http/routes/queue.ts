import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ServerContext } from "../server-context.js";
import { errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";

/**
 * The worker pool's route (docs/http-api.md, "Worker pool"): `GET /api/queue`, the counts
 * (waiting, active, done, interrupted, failed), the capacity and the live workers of the
 * configured backend.
 */
export function queueRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  app.openapi(
    createRoute({
      method: "get",
      path: "/queue",
      summary: "The worker pool's counts, capacity and live workers",
      responses: {
        200: jsonAnswer("the queue's status", QueueStatusSchema),
        503: errorAnswer("queue_unavailable"),
      },
    }),
    async (c) => {
      const client = await context.host.skillgate.queue.client();
      return c.json(await client.status(), 200);
    },
  );
  return app;
}

const QueueWorkerSchema = z
  .object({
    name: z.string(),
    host: z.string(),
    pid: z.number().optional(),
    concurrency: z.number(),
    running: z.number(),
    lastSeen: z.string(),
    stopping: z.boolean(),
    heartbeatMs: z.number().optional(),
  })
  .openapi("QueueWorker");

const QueueStatusSchema = z
  .object({
    backend: z.enum(["local", "redis"]),
    counts: z.object({
      waiting: z.number(),
      active: z.number(),
      done: z.number(),
      interrupted: z.number(),
      failed: z.number(),
    }),
    workers: z.array(QueueWorkerSchema).readonly(),
    capacity: z.number(),
  })
  .openapi("QueueStatus");
