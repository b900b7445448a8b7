import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach } from "vitest";
import { ManifestIssuer } from "../../src/nodes/manifest/manifest-issuer.js";
import { isPackageError } from "../../src/nodes/packages/package-errors.js";
import { parsePackageKey } from "../../src/nodes/packages/package-format.js";
import { PackageStore } from "../../src/nodes/packages/package-store.js";
import { AGENT_ROUTES, type SignedSkillsManifest } from "../../src/nodes/protocol.js";

/**
 * A bare controller for the SkillSync tests: a node:http server on port 0 that answers the
 * manifest and package routes from a real {@link PackageStore} and {@link ManifestIssuer},
 * for one node and one credential. The full controller (registry, scopes, the run channel)
 * is another suite's; this is only what SkillSync talks to, with hooks a test uses to lie.
 */

/** A skill the test controller offers: its name, current hash and live folder. */
export interface OfferedSkill {
  readonly name: string;
  readonly hash: string;
  readonly folder: string;
}

/** A running test controller. */
export interface TestController {
  readonly url: string;
  readonly credential: string;
  readonly node: string;
  readonly packages: PackageStore;
  readonly issuer: ManifestIssuer;
  /** The skills offered now, by name; the test edits it. */
  readonly offered: Map<string, OfferedSkill>;
  /** Replaces the manifest answer (a replay, another key's signature). */
  manifest?: (() => unknown) | undefined;
  /** Replaces a package's bytes as served (a flipped byte, a hostile archive). */
  packageBytes?: ((name: string, hash: string, bytes: Buffer) => Buffer) | undefined;
  /** Every signed manifest served, in order. */
  readonly served: SignedSkillsManifest[];
  /** Package requests seen, as `name@hash`. */
  readonly downloads: string[];
}

const running: Server[] = [];

afterEach(async () => {
  for (const server of running.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Starts a test controller on loopback, port 0, over `dataFolder`. */
export async function startTestController(dataFolder: string, node = "lab01"): Promise<TestController> {
  const packages = new PackageStore({ dataFolder: join(dataFolder, "controller") });
  const issuer = new ManifestIssuer({ dataFolder: join(dataFolder, "controller"), packages });
  const state: Omit<TestController, "url"> = {
    credential: "node-credential-0123456789",
    node,
    packages,
    issuer,
    offered: new Map(),
    served: [],
    downloads: [],
  };
  const server = createServer((request, response) => {
    handle(controller, request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "internal", message: String(error) } }));
    });
  });
  running.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const controller: TestController = Object.assign(state, { url: `http://127.0.0.1:${port}` });
  return controller;
}

async function handle(
  controller: TestController,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const json = (status: number, body: unknown): void => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  };
  if (request.headers.authorization !== `Bearer ${controller.credential}`)
    return json(401, { error: { code: "unauthorized", message: "no node credential" } });
  const url = request.url ?? "";
  if (request.method === "GET" && url === AGENT_ROUTES.manifest) {
    if (controller.manifest !== undefined) return json(200, controller.manifest());
    const issued = await controller.issuer.buildManifest(controller.node, [...controller.offered.values()]);
    controller.served.push(issued.signed);
    return json(200, issued.signed);
  }
  if (request.method === "GET" && url.startsWith(`${AGENT_ROUTES.packages}/`)) {
    const key = parsePackageKey(decodeURIComponent(url.slice(AGENT_ROUTES.packages.length + 1)));
    if (key === undefined) return json(404, { error: { code: "package_not_found" } });
    controller.downloads.push(`${key.name}@${key.hash}`);
    try {
      const opened = controller.packages.open(key.name, key.hash, controller.offered.get(key.name)?.hash);
      const bytes = controller.packageBytes?.(key.name, key.hash, opened.bytes) ?? opened.bytes;
      response.writeHead(200, { "content-type": "application/gzip" });
      response.end(bytes);
    } catch (error) {
      if (!isPackageError(error)) throw error;
      json(error.code === "package_stale" ? 410 : 404, {
        error: { code: error.code, message: error.message },
      });
    }
    return;
  }
  json(404, { error: { code: "not_found" } });
}
