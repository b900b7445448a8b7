import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterEach } from "vitest";
import { silentLogger } from "../../../src/observe/logger.js";
import { Store } from "../../../src/store/store.js";
import { createApiApp } from "../../../src/surfaces/http/app.js";
import type { ServerContext } from "../../../src/surfaces/http/server-context.js";
import { type ServerEvent, ServerEvents } from "../../../src/surfaces/http/server-events.js";
import { McpHost } from "../../../src/surfaces/mcp/host.js";
import { makeTree } from "../../helpers/skill-tree.js";

/**
 * The `/api` app over a real store, served by @hono/node-server on 127.0.0.1 and a free
 * port: a context built the way the server builds its own (one McpHost over private
 * folders, its store, a server-events bus), mounted under `/api`. The server's security
 * middleware is not part of this app; its own tests cover it.
 */

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

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Options of {@link startApi}. */
export interface ApiOptions {
  /** The store's wait for its lock before `store_busy` (default the store's 60 s). */
  readonly lockWaitMs?: number;
}

/** Starts the API over a new data folder; stopped after the test. */
export async function startApi(options: ApiOptions = {}): Promise<ApiServer> {
  const tree = makeTree("skillgate-api-");
  const config = join(tree, "config");
  const data = join(tree, "data");
  const project = join(tree, "project");
  const host = await McpHost.open({
    config,
    data,
    roots: [project],
    watchIntervalMs: false,
    logger: silentLogger,
  });
  closers.push(() => host.close());
  const store =
    options.lockWaitMs === undefined
      ? await host.skillgate.openStore()
      : await Store.open({ dataFolder: data, lockWaitMs: options.lockWaitMs });
  const bus = new ServerEvents();
  const events: ServerEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const context: ServerContext = { host, store, events: bus, logger: silentLogger };
  const api = createApiApp(context);
  const root = new (await import("hono")).Hono();
  root.route("/api", api);
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
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tree,
    config,
    data,
    project,
    context,
    events,
    request: async (method, path, body, headers = {}) => {
      const init: RequestInit = { method, headers: { ...headers } };
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
