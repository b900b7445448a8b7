import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeTree } from "../helpers/skill-tree.js";

/**
 * The OpenTelemetry SDK as the owner switches it on: the real CLI in a child process with the
 * standard OTEL_* variables, exporting OTLP/HTTP (JSON) to a receiver on loopback that decodes
 * each export. And the other half: without those variables the SDK is never loaded, which a
 * module trace of the same command shows.
 */

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const HOOKS = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.SKILLGATE_MODULE_LOG, url + "\\n");
  return next(url, context);
}
`;
const PRELOAD = (hooks: string) => `
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
register(${JSON.stringify(hooks)});
const require = createRequire(import.meta.url);
process.on("exit", () => {
  appendFileSync(process.env.SKILLGATE_MODULE_LOG, Object.keys(require.cache).map((file) => "file://" + file + "\\n").join(""));
});
`;

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** `skillgate invoke workflow.nothing` from the sources with `environment`; its exit code, and the modules it loaded. */
async function invokeCli(
  environment: Record<string, string>,
): Promise<{ code: number | null; err: string; modules: string[] }> {
  const tree = makeTree("skillgate-otel-");
  const hooks = join(tree, "hooks.mjs");
  const preload = join(tree, "preload.mjs");
  const log = join(tree, "modules.log");
  writeFileSync(hooks, HOOKS);
  writeFileSync(preload, PRELOAD(pathToFileURL(hooks).href));
  writeFileSync(log, "");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      pathToFileURL(preload).href,
      join(repository, "src/surfaces/cli/main.ts"),
      ...[
        "--config",
        join(tree, "config"),
        "--data",
        join(tree, "data"),
        "--root",
        join(tree, "project"),
        "--no-builtins",
      ],
      "invoke",
      "workflow.nothing",
      "--payload",
      '{"scope":"current_diff"}',
    ],
    {
      cwd: repository,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: join(tree, "home"),
        NO_COLOR: "1",
        SKILLGATE_MODULE_LOG: log,
        ...environment,
      },
    },
  );
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const modules = readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  return { code, err, modules };
}

/** An OTLP/HTTP receiver on loopback: every export's path and decoded JSON body. */
async function otlpReceiver(): Promise<{ url: string; exports: Array<{ path: string; body: unknown }> }> {
  const exports: Array<{ path: string; body: unknown }> = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        exports.push({ path: request.url ?? "", body: JSON.parse(text) });
      } catch {
        exports.push({ path: request.url ?? "", body: undefined });
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closing.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports };
}

interface OtlpSpan {
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
}

function spansOf(exports: Array<{ path: string; body: unknown }>): OtlpSpan[] {
  return exports
    .filter((item) => item.path === "/v1/traces")
    .flatMap(
      (item) =>
        (item.body as { resourceSpans?: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> })
          .resourceSpans ?? [],
    )
    .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
}

const SDK = "/node_modules/@opentelemetry/sdk-node/";

describe("OpenTelemetry SDK, switched on by OTEL_* only", () => {
  it("exports the invocation's execute_tool span and its metrics over OTLP/HTTP to a real receiver", async () => {
    const receiver = await otlpReceiver();
    const run = await invokeCli({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "skillgate-under-test",
    });
    expect(run.err).toMatch(/capability_unknown/);
    expect(run.code).toBe(1);
    expect(run.modules.some((module) => module.includes(SDK))).toBe(true);
    const span = spansOf(receiver.exports).find((item) => item.name === "execute_tool workflow.nothing");
    expect(span).toBeDefined();
    const attributes = Object.fromEntries(
      (span?.attributes ?? []).map((item) => [item.key, item.value.stringValue]),
    );
    expect(attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "workflow.nothing",
      "error.type": "capability_unknown",
    });
    const service = JSON.stringify(receiver.exports.find((item) => item.path === "/v1/traces")?.body);
    expect(service).toContain("skillgate-under-test");
    const metricsText = JSON.stringify(
      receiver.exports.filter((item) => item.path === "/v1/metrics").map((item) => item.body),
    );
    expect(metricsText).toContain("gen_ai.execute_tool.duration");
    expect(metricsText).toContain("skillgate.capability.invocations");
  });

  it("loads no OpenTelemetry SDK without OTEL_* variables", async () => {
    const run = await invokeCli({});
    expect(run.code).toBe(1);
    expect(
      run.modules.filter((module) => /\/node_modules\/@opentelemetry\/(sdk-|exporter-|otlp-)/.test(module)),
    ).toEqual([]);
    // The API alone is loaded, as the whole app always did: every span is a no-op.
    expect(run.modules.some((module) => module.includes("/node_modules/@opentelemetry/api/"))).toBe(true);
  });
});
