import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { stream } from "hono/streaming";
import { runSkillScriptOn } from "../../../app/run-skill-script.js";
import { MAX_SCRIPT_ARGV_ITEMS } from "../../../runners/script-argv.js";
import { MAX_ARGUMENT_TEXT_BYTES } from "../../../tools/arguments.js";
import type { ServerContext } from "../server-context.js";
import { routeApp } from "./owner-route-app.js";

/** The media type of the run's answer: one JSON object per line. */
export const RUN_STREAM_TYPE = "application/x-ndjson";

/** The body of `POST /api/runs`: what `skillgate run` takes on its command line. */
const RunBodySchema = z
  .object({
    skill: z.string().min(1).max(200),
    script: z.string().min(1).max(1000),
    arguments: z
      .string()
      .max(MAX_ARGUMENT_TEXT_BYTES * 4)
      .optional()
      .openapi({ description: "the arguments as a model sends them: JSON text, normalised on the server" }),
    node: z.string().max(200).optional().openapi({ description: "a top-level node next to the arguments" }),
    argv: z
      .array(z.string().max(32 * 1024))
      .max(MAX_SCRIPT_ARGV_ITEMS)
      .optional(),
    approval: z.enum(["ask", "once", "always"]).default("ask").openapi({
      description:
        "once: approve this run if the policy asks; always: grant the skill at its hash to the chat `cli`; ask: an ask is declined (nobody can be asked over this request)",
    }),
  })
  .openapi("RunBody");

/** One line of the answer. */
const RunLineSchema = z
  .union([
    z.object({ type: z.literal("output"), stream: z.enum(["stdout", "stderr"]), chunk: z.string() }),
    z.object({
      type: z.literal("result"),
      status: z.string(),
      exitCode: z.number().int(),
      text: z.string(),
      unanswerable: z.boolean(),
      run: z.record(z.string(), z.unknown()).optional(),
    }),
  ])
  .openapi("RunLine");

/**
 * `POST /api/runs` (docs/http-api.md, "Runs"): `skillgate run --server URL` runs a script
 * on this server's Skillgate, through the same path as a local `skillgate run`
 * (app/run-skill-script.ts): the chat `cli`'s turn, argument normalisation, the policy, the
 * grant bound to `name@hash8`, the runner (a named node's included) and the audit log. The
 * answer streams as NDJSON: `{"type":"output",…}` lines as the script writes, then one
 * `{"type":"result",…}` line. The run has no workspace: the caller's folder is not here.
 * Closing the request stops the run.
 */
export function runsRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  app.openapi(
    createRoute({
      method: "post",
      path: "/runs",
      summary: "Run a skill's script the way a model's run_skill_script call runs it, streaming its output",
      request: { body: { content: { "application/json": { schema: RunBodySchema } }, required: true } },
      responses: {
        200: {
          description:
            "NDJSON: output lines as they come, then the result line (a body that does not match is answered 400 invalid_argument, as every route)",
          content: { "application/x-ndjson": { schema: RunLineSchema } },
        },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      c.header("Content-Type", RUN_STREAM_TYPE);
      c.header("Cache-Control", "no-store");
      c.header("X-Accel-Buffering", "no");
      // A streamed body has no typed-response form in zod-openapi; the schema above documents it.
      return stream(c, async (out) => {
        const abort = new AbortController();
        out.onAbort(() => abort.abort());
        let writing = Promise.resolve();
        const line = (value: object): void => {
          const text = `${JSON.stringify(value)}\n`;
          writing = writing
            .then(() => out.write(text))
            .then(
              () => undefined,
              () => undefined,
            );
        };
        const outcome = await runSkillScriptOn(context.host.skillgate, {
          skill: body.skill,
          script: body.script,
          approval: body.approval,
          signal: abort.signal,
          ...(body.arguments !== undefined ? { argumentsText: body.arguments } : {}),
          ...(body.node !== undefined ? { node: body.node } : {}),
          ...(body.argv !== undefined && body.argv.length > 0 ? { argv: body.argv } : {}),
          onOutput: (which, chunk) => line({ type: "output", stream: which, chunk }),
        });
        line({
          type: "result",
          status: outcome.status,
          exitCode: outcome.exitCode,
          text: outcome.text,
          unanswerable: outcome.unanswerable,
          ...(outcome.run !== undefined ? { run: outcome.run } : {}),
        });
        await writing;
      }) as never;
    },
  );
  return app;
}
