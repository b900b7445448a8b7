import { mkdirSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type RunningServer, type ServerOptions, startServer } from "../../src/surfaces/http/server.js";
import { makeTree } from "./skill-tree.js";

/**
 * `skillgate serve` for tests: a real server on port 0 over a temporary tree (its own config,
 * data and project folders), the owner token known to the test, and requests that carry it.
 * Every server started here is stopped after the test. Route tests of every area use this.
 */

/** The owner token a test server uses unless the test asks for a made one. */
export const TEST_TOKEN = "test-owner-token-0123456789abcdef";

/** The CSRF header and value every state-changing test request sends. */
export const CSRF_HEADERS = { "X-Skillgate-CSRF": "1" } as const;

const running: RunningServer[] = [];

afterEach(async () => {
  for (const server of running.splice(0).reverse()) await server.close().catch(() => {});
});

/** The folders of a test server's tree, none shared with another test. */
export interface TestServerFolders {
  readonly tree: string;
  readonly config: string;
  readonly data: string;
  readonly project: string;
  /** `<project>/.agents/skills`: local skills the catalog finds. */
  readonly skills: string;
  /** Global CLI flags that point `skillgate` at this tree (for a CLI run beside the server). */
  readonly flags: readonly string[];
}

/** What {@link startTestServer} is given. */
export interface TestServerOptions {
  /** The owner token; `null` lets the server make one (then `loginUrl` is set). Default {@link TEST_TOKEN}. */
  readonly token?: string | null;
  /** `<config>/config.yaml`, written before the server starts. */
  readonly configYaml?: string;
  /** Called with the folders before the server starts: write skills, store contents. */
  readonly prepare?: (folders: TestServerFolders) => void | Promise<void>;
  /** Built-in skills in the catalog and store (default true). */
  readonly builtins?: boolean;
  /** Any other server option (the tree's folders and port 0 are set unless given here). */
  readonly server?: Partial<ServerOptions>;
}

/** A raw answer: status, headers (lower-case names) and body text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** A running test server and ways to call it. */
export interface TestServer {
  readonly server: RunningServer;
  readonly folders: TestServerFolders;
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly origin: string;
  /** The owner token the requests carry (the made one when the server made it). */
  readonly token: string;
  /**
   * `fetch(origin + path)` with `Authorization: Bearer TOKEN` and the CSRF header; `init`'s
   * headers are added (and win). A JSON `body` object is sent as JSON.
   */
  fetch(
    path: string,
    init?: Omit<RequestInit, "body"> & { body?: RequestInit["body"] | object },
  ): Promise<Response>;
  /** {@link fetch} and the body parsed as JSON, with the status. */
  json<T = unknown>(
    path: string,
    init?: Omit<RequestInit, "body"> & { body?: RequestInit["body"] | object },
  ): Promise<{ status: number; body: T }>;
  /** A request with exactly these headers and nothing added (a foreign Host, no token), over node:http. */
  raw(
    method: string,
    path: string,
    headers?: Readonly<Record<string, string>>,
    body?: string,
  ): Promise<RawAnswer>;
}

/** Starts a server on port 0 over a new tree; stopped after the test. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const tree = makeTree("skillgate-serve-");
  const folders: TestServerFolders = {
    tree,
    config: join(tree, "config"),
    data: join(tree, "data"),
    project: join(tree, "project"),
    skills: join(tree, "project", ".agents", "skills"),
    flags: ["--config", join(tree, "config"), "--data", join(tree, "data"), "--root", join(tree, "project")],
  };
  mkdirSync(folders.config, { recursive: true });
  mkdirSync(folders.skills, { recursive: true });
  if (options.configYaml !== undefined)
    writeFileSync(join(folders.config, "config.yaml"), options.configYaml);
  await options.prepare?.(folders);
  const token = options.token === undefined ? TEST_TOKEN : options.token;
  const server = await startServer({
    port: 0,
    ...(token !== null ? { token } : {}),
    heartbeatMs: 60_000,
    ...options.server,
    skillgate: {
      config: folders.config,
      data: folders.data,
      roots: [folders.project],
      builtins: options.builtins ?? true,
      watchIntervalMs: false,
      ...options.server?.skillgate,
    },
  });
  running.push(server);
  const origin = server.url.replace(/\/$/, "");
  const ownerToken = token ?? new URL(server.loginUrl ?? server.url).searchParams.get("token") ?? "";
  const authorizedFetch: TestServer["fetch"] = (path, init = {}) => {
    const headers = new Headers({ Authorization: `Bearer ${ownerToken}`, ...CSRF_HEADERS });
    let body = init.body;
    if (body !== undefined && body !== null && isPlainObject(body)) {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(body);
    }
    for (const [name, value] of new Headers(init.headers ?? {})) headers.set(name, value);
    const { body: _given, ...rest } = init;
    return fetch(`${origin}${path}`, {
      ...rest,
      headers,
      ...(body !== undefined ? { body: body as Exclude<RequestInit["body"], undefined> } : {}),
    });
  };
  return {
    server,
    folders,
    origin,
    token: ownerToken,
    fetch: authorizedFetch,
    json: async <T>(path: string, init?: Parameters<TestServer["fetch"]>[1]) => {
      const response = await authorizedFetch(path, init);
      const text = await response.text();
      return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
    },
    raw: (method, path, headers = {}, body) => rawRequest(server.port, method, path, headers, body),
  };
}

/** One request over node:http with exactly `headers` (node adds no Host when one is given). */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: { Host: `127.0.0.1:${port}`, ...headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

function isPlainObject(value: unknown): value is object {
  return (
    typeof value === "object" &&
    value !== null &&
    (Object.getPrototypeOf(value) === Object.prototype || Array.isArray(value))
  );
}
