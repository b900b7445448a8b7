import { z } from "@hono/zod-openapi";

/**
 * The zod schemas the skills, files and import routes share: request parts and the answers
 * they document in `/api/openapi.json`. Names and hashes are plain strings here on purpose:
 * the store checks them and refuses with its own codes (`invalid_skill_name`,
 * `invalid_argument`), so every surface gets the same answer for the same input.
 */

/** `{"error": {code, message, data}}`: every refusal of the API. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "skill_changed" }),
      message: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
  })
  .openapi("Error");

/** An error answer with `description`, for a route's `responses`. */
export function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: ErrorBodySchema } } } as const;
}

/** The `{name}` path parameter. */
export const SkillNameParams = z.object({
  name: z.string().openapi({ param: { name: "name", in: "path" }, example: "pdf-tools" }),
});

/** `{name}` and the file's path inside the skill (`scripts/run.py`; slashes allowed). */
export const SkillFileParams = z.object({
  name: z.string().openapi({ param: { name: "name", in: "path" }, example: "pdf-tools" }),
  path: z.string().openapi({
    param: { name: "path", in: "path" },
    example: "scripts/run.py",
    description: "a path inside the skill; slashes separate folders",
  }),
});

/** `?hash=`: make a write conditional on the hash the client last saw. */
export const ExpectedHashQuery = z.object({
  hash: z.string().optional().openapi({
    description: "refuse with 409 skill_changed unless the skill's current hash is this (64 hex)",
  }),
});

/** The result of every write: the skill's new state and the store revision. */
export const ChangeResultSchema = z
  .object({
    name: z.string(),
    hash: z.string(),
    enabled: z.boolean(),
    source: z.string(),
    updated: z.string(),
    revision: z.number().int(),
    diagnostics: z.array(z.record(z.string(), z.unknown())),
    scriptWarnings: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("ChangeResult");

/** One skill of `GET /api/skills`. */
export const SkillSummarySchema = z
  .object({
    name: z.string(),
    description: z.string(),
    source: z.string(),
    enabled: z.boolean(),
    hash: z.string(),
    updated: z.string().optional(),
    origin: z.string().optional(),
    locked: z.literal(true).optional(),
    author: z.string(),
    runner: z.enum(["local", "sandbox", "node", "queue"]).optional(),
    tier: z.enum(["read", "change", "destructive"]).optional(),
    reviewWarnings: z.number().int(),
    loads: z.boolean(),
  })
  .openapi("SkillSummary");

/** `GET /api/skills/{name}`. */
export const SkillDetailSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    source: z.string(),
    enabled: z.boolean(),
    hash: z.string(),
    recordedHash: z.string(),
    grant: z.string(),
    updated: z.string().optional(),
    origin: z.string().optional(),
    locked: z.literal(true).optional(),
    author: z.string(),
    draft: z.record(z.string(), z.unknown()),
    skillFile: z.string(),
    files: z.array(z.object({ path: z.string(), size: z.number().int() })),
    governance: z.record(z.string(), z.unknown()).optional(),
    scripts: z.array(
      z.object({ path: z.string(), language: z.string(), schema: z.record(z.string(), z.unknown()) }),
    ),
    lintWarnings: z.array(
      z.object({ rule: z.string(), file: z.string(), line: z.number().int(), message: z.string() }),
    ),
    diagnostics: z.array(z.record(z.string(), z.unknown())),
    decision: z
      .object({
        decision: z.string(),
        source: z.string(),
        reasons: z.array(z.record(z.string(), z.unknown())),
      })
      .optional(),
  })
  .openapi("SkillDetail");

/**
 * `value` as the plain JSON its schema describes: read-only arrays and optional keys of
 * the core's types become what `c.json` is typed to send, by the same round trip `c.json`
 * makes anyway.
 */
export function asWire<Schema extends z.ZodType>(_schema: Schema, value: unknown): z.infer<Schema> {
  return JSON.parse(JSON.stringify(value)) as z.infer<Schema>;
}
