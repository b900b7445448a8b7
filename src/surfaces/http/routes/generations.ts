import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { generationsFolder, manageGenerations } from "../../../capabilities/generations/generation-board.js";
import type { ServerContext } from "../server-context.js";
import { errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";

/**
 * The generations routes (docs/http-api.md, "Generations"): the generations of reloading Lua
 * skills and the owner's answer to a widening switch, through the same core function as
 * `skillgate generations` (`manageGenerations`), on the board in the data folder.
 */
export function generationsRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  const folder = () => generationsFolder(context.host.skillgate.catalog.folders.data);
  // This process's reloaders know a record's state before the board's file is rewritten.
  const live = () => context.reloads?.list();

  app.openapi(
    createRoute({
      method: "get",
      path: "/generations",
      summary: "The generations of reloading Lua skills, newest first within a skill",
      responses: {
        200: jsonAnswer("generations", z.object({ generations: z.array(GenerationSchema).readonly() })),
      },
    }),
    async (c) => {
      const response = await manageGenerations(folder(), { action: "list" }, live());
      return c.json({ generations: response.action === "list" ? response.generations : [] }, 200);
    },
  );

  for (const action of ["approve", "reject"] as const) {
    app.openapi(
      createRoute({
        method: "post",
        path: `/generations/{id}/${action}`,
        summary:
          action === "approve"
            ? "Approve a switch waiting for approval: the serving process switches and drains the old generation"
            : "Reject a switch waiting for approval: the active generation keeps serving",
        request: {
          params: z.object({ id: z.string().max(300).openapi({ description: "skill@number" }) }),
        },
        responses: {
          200: jsonAnswer("answered", z.object({ action: z.literal(action), generation: GenerationSchema })),
          404: errorAnswer("generation_not_found"),
          409: errorAnswer("generation_not_waiting"),
        },
      }),
      async (c) => {
        const response = await manageGenerations(folder(), { action, id: c.req.valid("param").id }, live());
        if (!("generation" in response)) throw new Error("an answer always names its generation");
        return c.json({ action, generation: response.generation }, 200);
      },
    );
  }
  return app;
}

const GenerationSchema = z
  .object({
    id: z.string(),
    skill: z.string(),
    number: z.number().int(),
    state: z.enum(["shadow", "waiting_approval", "active", "draining", "closed", "rejected"]),
    manifestDigest: z.string(),
    createdAt: z.string(),
    widening: z.array(z.string()).readonly(),
    detail: z.string().optional(),
  })
  .openapi("Generation");
