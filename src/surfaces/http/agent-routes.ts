import type { HttpBindings } from "@hono/node-server";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isSkillgateError } from "../../core/errors.js";
import { isPlainObject } from "../../core/safe-json.js";
import type { NodeController } from "../../nodes/controller/node-controller.js";
import type { NodeEntry } from "../../nodes/controller/node-registry.js";
import { isNodeName } from "../../nodes/controller/registry-file.js";
import {
  AGENT_ROUTES,
  type EnrolResponse,
  type Heartbeat,
  type HeartbeatResponse,
} from "../../nodes/protocol.js";
import { apiError, errorResponse } from "./api-error.js";
import { tooManyAttempts } from "./security/authenticate.js";
import type { LoginAttempts } from "./security/login-attempts.js";

/** The largest enrolment body, in bytes. */
export const MAX_ENROL_BODY_BYTES = 4 * 1024;
/** The largest heartbeat body, in bytes (a node holding a thousand skills fits). */
export const MAX_HEARTBEAT_BODY_BYTES = 256 * 1024;

type AgentEnv = { Bindings: HttpBindings; Variables: { node: NodeEntry } };

/**
 * The routes node agents call (src/nodes/protocol.ts, AGENT_ROUTES; docs/nodes.md, "The
 * controller"), mounted before the owner's check and apart from it: enrolment takes the
 * one-time token, every other route `Authorization: Bearer <node credential>`, which names
 * the node, so a node can only ever fetch its own manifest and packages and report its own
 * heartbeat. An owner token is not a node credential here, and a node credential is not the
 * owner's anywhere under `/api`. Wrong credentials count as failed logins of the address.
 */
export function agentRoutes(nodes: NodeController, attempts: LoginAttempts): Hono<AgentEnv> {
  const app = new Hono<AgentEnv>();
  app.onError((error, c) => errorResponse(c, error));

  app.post(
    AGENT_ROUTES.enrol,
    bodyLimit({ maxSize: MAX_ENROL_BODY_BYTES, onError: (c) => tooLarge(c, MAX_ENROL_BODY_BYTES) }),
    async (c) => {
      const client = clientOf(c);
      const waitMs = attempts.retryAfterMs(client);
      if (waitMs > 0) return tooManyAttempts(c, waitMs);
      const body = await jsonBody(c);
      if (
        !isPlainObject(body) ||
        typeof body.name !== "string" ||
        typeof body.token !== "string" ||
        body.token.length > 200
      )
        return apiError(c, 400, "invalid_argument", 'the body must be {"name": NAME, "token": TOKEN}');
      if (!isNodeName(body.name))
        return apiError(c, 400, "invalid_node_name", "that is not a node name", {
          name: body.name.slice(0, 80),
        });
      try {
        const enrolled = await nodes.registry.enrol(body.name, body.token);
        const answer: EnrolResponse = {
          name: enrolled.node.name,
          credential: enrolled.credential,
          controllerPublicKey: await nodes.publicKeyPem(),
        };
        return c.json(answer, 200);
      } catch (error) {
        if (isSkillgateError(error, "enrolment_refused")) attempts.recordFailure(client);
        throw error;
      }
    },
  );

  const authenticated = requireNode(nodes, attempts);

  app.get(AGENT_ROUTES.manifest, authenticated, async (c) =>
    c.json(await nodes.manifest(c.get("node")), 200),
  );

  app.get(`${AGENT_ROUTES.packages}/:reference`, authenticated, async (c) => {
    const reference = c.req.param("reference");
    const match = /^([a-z0-9][a-z0-9-]{0,63})@([0-9a-f]{64})$/.exec(reference);
    if (match === null)
      return apiError(c, 400, "invalid_argument", "a package is named NAME@FULLHASH (64 hex digits)");
    const bytes = await nodes.package(c.get("node"), match[1] as string, match[2] as string);
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": "application/gzip",
      "Content-Length": String(bytes.byteLength),
    });
  });

  app.post(
    AGENT_ROUTES.heartbeat,
    authenticated,
    bodyLimit({ maxSize: MAX_HEARTBEAT_BODY_BYTES, onError: (c) => tooLarge(c, MAX_HEARTBEAT_BODY_BYTES) }),
    async (c) => {
      const beat = heartbeatOf(await jsonBody(c));
      if (beat === undefined)
        return apiError(
          c,
          400,
          "invalid_argument",
          "the body is not a heartbeat (see src/nodes/protocol.ts)",
        );
      const node = c.get("node");
      nodes.hub.heartbeat(node.name, beat);
      const answer: HeartbeatResponse = { manifestSequence: nodes.manifestSequence(node) };
      return c.json(answer, 200);
    },
  );

  app.all("/agent/*", (c) => apiError(c, 404, "not_found", `no agent route ${c.req.method} ${c.req.path}`));
  return app;
}

/** The node a request's bearer credential names, or undefined (also for an owner token). */
export function nodeOfAuthorization(
  nodes: NodeController,
  authorization: string | undefined,
): NodeEntry | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match === null ? undefined : nodes.registry.authenticate(match[1] as string);
}

function requireNode(nodes: NodeController, attempts: LoginAttempts): MiddlewareHandler<AgentEnv> {
  return async (c, next) => {
    const client = clientOf(c);
    const waitMs = attempts.retryAfterMs(client);
    if (waitMs > 0) return tooManyAttempts(c, waitMs);
    const node = nodeOfAuthorization(nodes, c.req.header("authorization"));
    if (node === undefined) {
      if (c.req.header("authorization") !== undefined) attempts.recordFailure(client);
      c.header("WWW-Authenticate", 'Bearer realm="skillgate-agent"');
      return apiError(
        c,
        401,
        "node_unauthorized",
        "send Authorization: Bearer <node credential> (from enrolment)",
      );
    }
    c.set("node", node);
    return next();
  };
}

function clientOf(c: Context<AgentEnv>): string {
  return c.env.incoming.socket.remoteAddress ?? "unknown";
}

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text());
  } catch {
    return undefined;
  }
}

function tooLarge(c: Context, limit: number): Response {
  return apiError(c, 413, "limit_exceeded", `the body is over ${limit} bytes`, { limit });
}

const MAX_LISTED = 10_000;

/** The heartbeat in `value`, checked field by field, or undefined when it is not one. */
export function heartbeatOf(value: unknown): Heartbeat | undefined {
  if (!isPlainObject(value)) return undefined;
  const { features, sandbox, os, arch, skills, runs, agentVersion } = value;
  if (!textList(features) || !textList(runs)) return undefined;
  if (typeof os !== "string" || typeof arch !== "string" || typeof agentVersion !== "string")
    return undefined;
  if (!isPlainObject(sandbox) || typeof sandbox.available !== "boolean") return undefined;
  if (!isPlainObject(skills) || Object.keys(skills).length > MAX_LISTED) return undefined;
  const held: Record<string, string> = Object.create(null);
  for (const [name, hash] of Object.entries(skills)) {
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) return undefined;
    held[name] = hash;
  }
  const limits: Record<string, string> = {};
  if (isPlainObject(sandbox.limits))
    for (const [key, text] of Object.entries(sandbox.limits))
      if (typeof text === "string") limits[key.slice(0, 64)] = text.slice(0, 200);
  return {
    features: features.map((item) => item.slice(0, 64)),
    sandbox: {
      available: sandbox.available,
      ...(typeof sandbox.reason === "string" ? { reason: sandbox.reason.slice(0, 500) } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
    },
    os: os.slice(0, 64),
    arch: arch.slice(0, 64),
    skills: held,
    runs: runs.map((item) => item.slice(0, 100)),
    agentVersion: agentVersion.slice(0, 64),
  };
}

function textList(value: unknown): value is string[] {
  return (
    Array.isArray(value) && value.length <= MAX_LISTED && value.every((item) => typeof item === "string")
  );
}
