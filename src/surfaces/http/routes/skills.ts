import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { createOwnerSkill } from "../../../app/owner/create-skill.js";
import { readSkillDetail } from "../../../app/owner/skill-detail.js";
import { SkillListCache } from "../../../app/owner/skill-list-cache.js";
import type { ServerContext } from "../server-context.js";
import { SerialisedSkillLists } from "./skill-list-body.js";
import {
  asWire,
  ChangeResultSchema,
  ErrorBodySchema,
  ExpectedHashQuery,
  errorResponse,
  SkillDetailSchema,
  SkillNameParams,
  SkillSummarySchema,
} from "./skill-schemas.js";

/**
 * `/api/skills…`: the owner's list, a skill's page, create, enable/disable by hash, duplicate
 * and delete (docs/http-api.md, "Skills"). Each route parses, calls `src/app/owner/` or the
 * store, publishes a server event after a write, and answers; a refusal is the store's code
 * and status.
 */
export function skillsRoutes(context: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const lists = new SkillListCache(context.store, {
    catalogRevision: () =>
      context.host.catalogWatchStatus()?.notifications === "complete"
        ? context.host.skillgate.catalog.revision.value
        : undefined,
  });
  const bodies = new SerialisedSkillLists();
  const json = { "application/json": { schema: ChangeResultSchema } } as const;

  app.openapi(
    createRoute({
      method: "get",
      path: "/skills",
      summary:
        "every skill: built-ins and stored, with source, state, hash, author, runner, tier, lint count",
      responses: {
        200: {
          description: "the skills, sorted by name, and the store's revision (with an ETag)",
          content: {
            "application/json": {
              schema: z.object({ revision: z.number().int(), skills: z.array(SkillSummarySchema) }),
            },
          },
        },
        304: { description: "not modified: If-None-Match named the list's current ETag" },
      },
    }),
    async (c) => {
      const body = bodies.of(await lists.current());
      if (body.matches(c.req.header("if-none-match")))
        return new Response(null, { status: 304, headers: { ETag: body.etag } });
      return new Response(body.bytes, {
        status: 200,
        headers: { "Content-Type": "application/json", ETag: body.etag },
      });
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/skills",
      summary: "create a skill from text files (saved disabled unless enabled is true)",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string(),
                description: z.string().optional(),
                files: z.record(z.string(), z.string()).optional(),
                enabled: z.boolean().optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: { description: "created", content: json },
        400: errorResponse("invalid_skill_name, path_not_allowed, skill_invalid, invalid_argument"),
        403: errorResponse("builtin_read_only"),
        409: errorResponse("skill_exists"),
        413: errorResponse("too_many_skills, too_many_files, file_too_large, skill_too_large"),
        422: errorResponse("script_check_failed"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await createOwnerSkill(context.store, {
        name: body.name,
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.files !== undefined ? { files: body.files } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      });
      context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
      return c.json(asWire(ChangeResultSchema, result), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/skills/{name}",
      summary: "one skill: SKILL.md, files, governance, schemas per script, hashes, lint, decision",
      request: { params: SkillNameParams },
      responses: {
        200: { description: "the skill", content: { "application/json": { schema: SkillDetailSchema } } },
        400: errorResponse("invalid_skill_name"),
        404: errorResponse("not_found"),
      },
    }),
    async (c) => {
      const detail = await readSkillDetail(
        context.store,
        context.host.skillgate.catalog,
        c.req.valid("param").name,
      );
      return c.json(asWire(SkillDetailSchema, detail), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/skills/{name}/enabled",
      summary: "enable a skill by the full hash that was reviewed, or disable it",
      request: {
        params: SkillNameParams,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                enabled: z.boolean(),
                hash: z
                  .string()
                  .optional()
                  .openapi({ description: "the 64-hex hash reviewed; needed to enable" }),
              }),
            },
          },
        },
      },
      responses: {
        200: { description: "the new state", content: json },
        400: errorResponse("invalid_argument (a missing or short hash), invalid_skill_name"),
        403: errorResponse("builtin_read_only"),
        404: errorResponse("not_found"),
        409: errorResponse("skill_changed (the hash moved since it was reviewed), unknown_hash"),
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const body = c.req.valid("json");
      const result = body.enabled
        ? await context.store.enable(name, { hash: body.hash ?? "" })
        : await context.store.disable(name);
      context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
      return c.json(asWire(ChangeResultSchema, result), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/skills/{name}/duplicate",
      summary: "copy a skill (a built-in too) under a new name, as the owner's",
      request: {
        params: SkillNameParams,
        body: {
          required: true,
          content: {
            "application/json": { schema: z.object({ to: z.string(), enabled: z.boolean().optional() }) },
          },
        },
      },
      responses: {
        201: { description: "the copy", content: json },
        400: errorResponse("invalid_skill_name"),
        403: errorResponse("builtin_read_only (the new name is a built-in's)"),
        404: errorResponse("not_found"),
        409: errorResponse("skill_exists"),
        413: errorResponse("too_many_skills"),
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const body = c.req.valid("json");
      const result = await context.store.duplicate(name, body.to, { enabled: body.enabled === true });
      context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
      return c.json(asWire(ChangeResultSchema, result), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/skills/{name}",
      summary: "delete a stored skill (optionally only if it still has ?hash=)",
      request: { params: SkillNameParams, query: ExpectedHashQuery },
      responses: {
        200: {
          description: "deleted",
          content: {
            "application/json": {
              schema: z.object({ name: z.string(), deleted: z.literal(true), revision: z.number().int() }),
            },
          },
        },
        400: errorResponse("invalid_skill_name, invalid_argument"),
        403: errorResponse("builtin_read_only"),
        404: errorResponse("not_found"),
        409: { description: "skill_changed", content: { "application/json": { schema: ErrorBodySchema } } },
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const { hash } = c.req.valid("query");
      const { revision } = await context.store.deleteSkill(
        name,
        hash !== undefined ? { expectedHash: hash } : {},
      );
      context.events.publish({ type: "skill-deleted", name });
      return c.json({ name, deleted: true as const, revision }, 200);
    },
  );

  return app;
}
