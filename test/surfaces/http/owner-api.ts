import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach } from "vitest";
import { createSkillgate, type Skillgate } from "../../../src/app/skillgate.js";
import { silentLogger } from "../../../src/observe/logger.js";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import type { Store } from "../../../src/store/store.js";
import { createApiApp } from "../../../src/surfaces/http/app.js";
import type { ServerContext } from "../../../src/surfaces/http/server-context.js";
import { type ServerEvent, ServerEvents } from "../../../src/surfaces/http/server-events.js";
import { McpHost } from "../../../src/surfaces/mcp/host.js";
import { FakeRunner } from "../../../src/testing/index.js";
import { type CliSandbox, cliSandbox } from "../cli/harness.js";

/**
 * The owner's API over real HTTP on port 0, against a real store in a sandbox's data folder:
 * the `/api` app of `createApiApp` on `@hono/node-server`, with a context built here (one
 * McpHost, its store, an event bus). The server's security middleware is not in front of it;
 * its own tests cover that. Every server, host and Skillgate is closed after the test.
 */

const opened: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** A running owner API. */
export interface OwnerApi {
  readonly sandbox: CliSandbox;
  readonly context: ServerContext;
  readonly store: Store;
  /** Every event published, in order. */
  readonly events: ServerEvent[];
  readonly base: string;
  /** A JSON request; `body` is sent as JSON when given. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: JsonBody }>;
  /**
   * A second Skillgate on the same folders whose asks wait in the approval queue (as an MCP
   * client without elicitation does): what the owner answers through the API.
   */
  agent(): Skillgate;
}

/** A response's parsed JSON body. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field
export type JsonBody = any;

/** Starts the API over a fresh sandbox. */
export async function ownerApi(options: { configText?: string } = {}): Promise<OwnerApi> {
  const sandbox = cliSandbox();
  if (options.configText !== undefined) sandbox.writeConfig(options.configText);
  const host = await McpHost.open({
    config: sandbox.config,
    data: sandbox.data,
    home: sandbox.home,
    roots: [sandbox.project],
    builtins: false,
    watchIntervalMs: false,
    runner: new FakeRunner(),
    logger: silentLogger,
  });
  opened.push(() => host.close());
  const store = await host.skillgate.openStore();
  const bus = new ServerEvents();
  const events: ServerEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const context: ServerContext = { host, store, events: bus, logger: silentLogger };
  const root = new Hono();
  root.route("/api", createApiApp(context));
  const server = serve({ fetch: root.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  opened.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    sandbox,
    context,
    store,
    events,
    base,
    request: async (method, path, body) => {
      const response = await fetch(`${base}${path}`, {
        method,
        ...(body !== undefined
          ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } }
          : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
    },
    agent: () => {
      const skillgate = createSkillgate({
        config: sandbox.config,
        data: sandbox.data,
        home: sandbox.home,
        roots: [sandbox.project],
        builtins: false,
        runner: new FakeRunner(),
        approve: ApprovalQueue.open({ dataFolder: sandbox.data }).deferredApprover(),
        audit: false,
      });
      opened.push(() => skillgate.close());
      return skillgate;
    },
  };
}

/** The request id a deferred call's text names. */
export function requestIdOf(text: string): string {
  const match = /skillgate approve ([0-9a-f-]{36})/.exec(text);
  if (match?.[1] === undefined) throw new Error(`no request id in: ${text}`);
  return match[1];
}
