import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, afterEach } from "vitest";
import { silentLogger } from "../../../src/observe/logger.js";
import { Store } from "../../../src/store/store.js";
import { createApiApp } from "../../../src/surfaces/http/app.js";
import { startServer } from "../../../src/surfaces/http/server.js";
import type { ServerContext } from "../../../src/surfaces/http/server-context.js";
import { type ServerEvent, ServerEvents } from "../../../src/surfaces/http/server-events.js";
import { McpHost } from "../../../src/surfaces/mcp/host.js";
import { CSRF_HEADERS, TEST_TOKEN } from "../../helpers/http-server.js";

/**
 * `skillgate serve` for the skills, files and import route tests: the real server
 * (`startServer`: security checks, `/api`, the store it opens) on 127.0.0.1 and port 0 over
 * private folders, every request carrying the owner's token and the CSRF header. Unlike the
 * shared test/helpers/http-server.ts it can live for a whole test file (a `beforeAll` table
 * over one store) and hands tests the server events it saw.
 */

/** What every request of an owner's client carries: the bearer token and the CSRF header. */
export const OWNER_HEADERS: Readonly<Record<string, string>> = {
  Authorization: `Bearer ${TEST_TOKEN}`,
  ...CSRF_HEADERS,
};

/** A running API and the folders behind it. */
export interface ApiServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly tree: string;
  readonly config: string;
  readonly data: string;
  readonly project: string;
  readonly context: ServerContext;
  /** Every server event published since the start. */
  readonly events: ServerEvent[];
  /** `fetch(url + path)` with JSON helpers. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
}

/** One answer: status and parsed JSON body (undefined when the body is not JSON). */
export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: {
    error?: { code: string; message: string; data: Record<string, unknown> };
    [key: string]: unknown;
  };
}

const perTest: (() => Promise<void>)[] = [];
const perFile: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of perTest.splice(0).reverse()) await close();
});
afterAll(async () => {
  for (const close of perFile.splice(0).reverse()) await close();
});

/** Options of {@link startApi}. */
export interface ApiOptions {
  /** The store's wait for its lock before `store_busy` (default the store's 60 s). */
  readonly lockWaitMs?: number;
  /** `test` (default): stopped and removed after the test; `file`: after the test file (a `beforeAll` API). */
  readonly lifetime?: "test" | "file";
  /** Runs the catalog watch, as `skillgate serve` does (default off: every call looks at the tree). */
  readonly watch?: boolean;
}

/** Starts the API over a new data folder; stopped after the test. */
export async function startApi(options: ApiOptions = {}): Promise<ApiServer> {
  const closers = options.lifetime === "file" ? perFile : perTest;
  const tree = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-api-")));
  closers.push(async () => rmSync(tree, { recursive: true, force: true }));
  const config = join(tree, "config");
  const data = join(tree, "data");
  const project = join(tree, "project");
  let context: ServerContext;
  let url: string;
  if (options.lockWaitMs === undefined) {
    const server = await startServer({
      port: 0,
      token: TEST_TOKEN,
      heartbeatMs: 60_000,
      skillgate: {
        config,
        data,
        roots: [project],
        builtins: true,
        watchIntervalMs: options.watch === true ? 60_000 : false,
      },
    });
    closers.push(() => server.close());
    context = server.context;
    url = server.url.replace(/\/$/, "");
  } else {
    // The server opens its store with the default lock wait (60 s); a store_busy test needs a
    // short one, so it mounts the same /api app over a store opened with it.
    const host = await McpHost.open({
      config,
      data,
      roots: [project],
      watchIntervalMs: false,
      logger: silentLogger,
    });
    closers.push(() => host.close());
    const store = await Store.open({ dataFolder: data, lockWaitMs: options.lockWaitMs });
    context = { host, store, events: new ServerEvents(), logger: silentLogger };
    const root = new Hono();
    root.route("/api", createApiApp(context));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: root.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          server.close(() => resolve());
        }),
    );
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const events: ServerEvent[] = [];
  context.events.subscribe((event) => events.push(event));
  return {
    url,
    tree,
    config,
    data,
    project,
    context,
    events,
    request: async (method, path, body, headers = {}) => {
      const init: RequestInit = { method, headers: { ...OWNER_HEADERS, ...headers } };
      if (body !== undefined) {
        init.body =
          typeof body === "string" || body instanceof Uint8Array ? (body as string) : JSON.stringify(body);
        if (typeof body !== "string" && !(body instanceof Uint8Array))
          (init.headers as Record<string, string>)["content-type"] ??= "application/json";
      }
      const response = await fetch(`${url}${path}`, init);
      const text = await response.text();
      let parsed: ApiAnswer["body"] = {};
      try {
        parsed = JSON.parse(text) as ApiAnswer["body"];
      } catch {
        parsed = {};
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
  };
}

/** Every file and folder under `folder` with the SHA-256 of each file: compared before and after a refusal. */
export function treeListing(folder: string): string[] {
  const lines: string[] = [];
  const walk = (current: string, prefix: string) => {
    for (const name of readdirSync(current).sort()) {
      // The lock folder comes and goes with every read under the lock; it is not content.
      if (prefix === "" && name === ".lock") continue;
      const path = join(current, name);
      const stats = statSync(path);
      if (stats.isDirectory()) {
        lines.push(`${prefix}${name}/`);
        walk(path, `${prefix}${name}/`);
      } else lines.push(`${prefix}${name} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`);
    }
  };
  walk(folder, "");
  return lines;
}
