import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ImportRefusedError } from "../../../store/import/import-errors.js";
import { DEFAULT_IMPORT_LIMITS } from "../../../store/import/limits.js";
import { githubOptionsFromEnvironment, importGithub, importZip } from "../../../store/importers.js";
import { errorBody } from "../api-error.js";
import type { ServerContext } from "../server-context.js";
import { asWire, ChangeResultSchema, errorResponse } from "./skill-schemas.js";

/**
 * `/api/skills/import…`: a zip upload, and a folder on GitHub (docs/http-api.md, "Import").
 * Both are the store's importers (docs/import.md), so every limit and code is theirs; an
 * imported skill is saved disabled. The zip body is read as a stream through the importer's
 * bound: a body past the zip limit is answered 413 `zip_too_large` as soon as the limit is
 * passed (at once when its Content-Length says so), and the connection is closed rather
 * than the rest of the body read.
 */
export function importRoutes(context: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono();
  const imported = { "application/json": { schema: ChangeResultSchema } } as const;
  const replaceQuery = z
    .enum(["true", "false"])
    .optional()
    .openapi({ description: "true: put the import in place of the stored skill of its name" });

  app.openapi(
    createRoute({
      method: "post",
      path: "/skills/import",
      summary: "import a skill from a zip body (at most 5 MiB), saved disabled",
      request: {
        query: z.object({
          filename: z.string().max(255).optional().openapi({ description: "recorded as the origin" }),
          replace: replaceQuery,
        }),
        body: {
          required: true,
          content: {
            "application/zip": { schema: z.string().openapi({ format: "binary" }) },
            "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) },
          },
        },
      },
      responses: {
        201: { description: "imported (disabled)", content: imported },
        400: errorResponse("invalid_zip, path_not_allowed, symlink_not_allowed, skill_invalid, …"),
        403: errorResponse("builtin_read_only"),
        404: errorResponse("not_found (replace, and no stored skill of its name)"),
        409: errorResponse("skill_exists"),
        413: errorResponse("zip_too_large (the connection is closed), zip_bomb, too_many_files, …"),
        422: errorResponse("missing_skill_file, script_check_failed"),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const limit = DEFAULT_IMPORT_LIMITS.maxZipBytes;
      const declared = Number(c.req.header("content-length"));
      try {
        if (Number.isFinite(declared) && declared > limit) throw zipTooLarge(limit, declared);
        const body = c.req.raw.body;
        const upload =
          body === null
            ? Buffer.alloc(0)
            : Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>);
        const result = await importZip(context.store, upload, {
          origin: query.filename ?? "upload.zip",
          replace: query.replace === "true",
        });
        context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
        return c.json(asWire(ChangeResultSchema, result), 201);
      } catch (error) {
        if (!(error instanceof ImportRefusedError) || error.code !== "zip_too_large") throw error;
        // The rest of the body is not wanted: answer now and close, so the client stops sending.
        c.header("Connection", "close");
        return c.json(errorBody(error), 413);
      }
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/skills/import/github",
      summary:
        "import the skill in a GitHub folder (https://github.com/OWNER/REPO/tree/REF/PATH), saved disabled",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                url: z
                  .string()
                  .openapi({ example: "https://github.com/owner/repo/tree/main/skills/pdf-tools" }),
                replace: z.boolean().optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: { description: "imported (disabled)", content: imported },
        400: errorResponse("invalid_github_url, path_not_allowed, …"),
        403: errorResponse("github_forbidden, builtin_read_only"),
        404: errorResponse("github_not_found"),
        409: errorResponse("skill_exists"),
        413: errorResponse("too_many_files, file_too_large, skill_too_large"),
        422: errorResponse("missing_skill_file, not_a_folder, script_check_failed"),
        429: errorResponse("github_rate_limited"),
        502: errorResponse("github_error, github_bad_response, github_response_too_large, github_truncated"),
        504: errorResponse("github_timeout"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const result = await importGithub(context.store, body.url, {
        ...githubOptionsFromEnvironment(process.env),
        // A client that goes away cancels the downloads; the store is left as it was.
        signal: c.req.raw.signal,
        replace: body.replace === true,
      });
      context.events.publish({ type: "skill-changed", name: result.name, revision: result.revision });
      return c.json(asWire(ChangeResultSchema, result), 201);
    },
  );

  return app;
}

function zipTooLarge(limit: number, actual: number): ImportRefusedError {
  return new ImportRefusedError("zip_too_large", `the zip is larger than ${limit} bytes`, { limit, actual });
}
