import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { updateAsOwner } from "../../../store/drafts/owner-edits.js";
import type { ServerContext } from "../server-context.js";
import {
  asWire,
  ChangeResultSchema,
  ExpectedHashQuery,
  errorResponse,
  SkillFileParams,
} from "./skill-schemas.js";

/**
 * `/api/skills/{name}/files/{path}`: read, write and remove one file of a skill
 * (docs/http-api.md, "Files"). Writes go through the owner's write path
 * (`updateAsOwner`: a drafted skill gets `skillgate.last-edit` and is locked for the
 * assistant), so the store checks the whole new version: scripts are syntax-checked
 * (422 `script_check_failed` with the checker's problems), and a SKILL.md whose front matter
 * or `parameters_schema` would break is refused (400 `skill_invalid` with its diagnostics).
 */
export function filesRoutes(context: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const changed = { "application/json": { schema: ChangeResultSchema } } as const;

  const read = createRoute({
    method: "get",
    path: FILE_ROUTING_PATH,
    hide: true,
    summary: "one file of a skill: UTF-8 text, or base64 when it is not text",
    request: { params: SkillFileParams },
    responses: {
      200: {
        description: "the file, with the skill's hash when it was read",
        content: {
          "application/json": {
            schema: z.object({
              name: z.string(),
              path: z.string(),
              size: z.number().int(),
              encoding: z.enum(["utf8", "base64"]),
              content: z.string(),
              hash: z.string(),
            }),
          },
        },
      },
      400: errorResponse("invalid_skill_name, path_not_allowed"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(read, async (c) => {
    const { name, path } = c.req.valid("param");
    // The hash first: if a write lands between the two reads, a conditional write made with
    // this hash is refused (skill_changed) rather than accepted over content never seen.
    const { hash } = await context.store.get(name);
    const bytes = Buffer.from(await context.store.readFile(name, path));
    const text = utf8Text(bytes);
    return c.json(
      {
        name,
        path,
        size: bytes.length,
        encoding: text === undefined ? ("base64" as const) : ("utf8" as const),
        content: text ?? bytes.toString("base64"),
        hash,
      },
      200,
    );
  });

  const write = createRoute({
    method: "put",
    path: FILE_ROUTING_PATH,
    hide: true,
    summary: "write one text file (created or replaced), after the store's checks",
    request: {
      params: SkillFileParams,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({
              content: z.string(),
              hash: z.string().optional().openapi({
                description: "refuse with 409 skill_changed unless the skill still has this hash",
              }),
            }),
          },
        },
      },
    },
    responses: {
      200: { description: "written", content: changed },
      400: errorResponse(
        "path_not_allowed, skill_invalid (front matter or parameters_schema), invalid_skill_name",
      ),
      403: errorResponse("builtin_read_only"),
      404: errorResponse("not_found"),
      409: errorResponse("skill_changed"),
      413: errorResponse("file_too_large, too_many_files, skill_too_large, too_many_domains"),
      422: errorResponse("script_check_failed: data.problems lists file, line, column, message"),
    },
  });
  app.openapi(write, async (c) => {
    const { name, path } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await updateAsOwner(
      context.store,
      name,
      { write: { [path]: body.content } },
      body.hash !== undefined ? { expectedHash: body.hash } : {},
    );
    context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
    return c.json(asWire(ChangeResultSchema, result), 200);
  });

  const remove = createRoute({
    method: "delete",
    path: FILE_ROUTING_PATH,
    hide: true,
    summary: "remove one file of a skill (never SKILL.md)",
    request: { params: SkillFileParams, query: ExpectedHashQuery },
    responses: {
      200: { description: "removed", content: changed },
      400: errorResponse("path_not_allowed, skill_invalid, invalid_skill_name"),
      403: errorResponse("builtin_read_only"),
      404: errorResponse("not_found"),
      409: errorResponse("skill_changed"),
    },
  });
  app.openapi(remove, async (c) => {
    const { name, path } = c.req.valid("param");
    const { hash } = c.req.valid("query");
    const result = await updateAsOwner(
      context.store,
      name,
      { remove: [path] },
      hash !== undefined ? { expectedHash: hash } : {},
    );
    context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
    return c.json(asWire(ChangeResultSchema, result), 200);
  });

  // The router takes the routing pattern; the document names the parameter plainly.
  for (const route of [read, write, remove]) {
    const { hide: _hidden, ...documented } = route;
    app.openAPIRegistry.registerPath({ ...documented, path: FILE_DOCUMENT_PATH });
  }
  return app;
}

/**
 * The routing path: Hono's `:path{.+}` takes the rest of the address, slashes included
 * (`scripts/lib/util.py`). @hono/zod-openapi turns `{x}` into `:x`, so `{path{.+}}` routes
 * as `:path{.+}`.
 */
const FILE_ROUTING_PATH = "/skills/{name}/files/{path{.+}}";
/** The same routes as the OpenAPI document names them (they are hidden from it as routed). */
const FILE_DOCUMENT_PATH = "/skills/{name}/files/{path}";

/** `bytes` as text when they are valid UTF-8 without a NUL; undefined for binary content. */
function utf8Text(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
