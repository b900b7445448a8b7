import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { NodeController } from "../../../nodes/controller/node-controller.js";
import { NodeError } from "../../../nodes/controller/node-errors.js";
import { NODE_NAME_PATTERN } from "../../../nodes/controller/registry-file.js";
import type { ServerContext } from "../server-context.js";
import { errorAnswer, jsonAnswer, routeApp } from "./owner-route-app.js";

const NodeStateSchema = z
  .object({
    name: z.string(),
    role: z.enum(["node", "worker"]),
    addedAt: z.string(),
    enrolled: z.boolean(),
    enrolledAt: z.string().optional(),
    enrolmentExpiresAt: z.string().optional(),
    locked: z.boolean(),
    online: z.boolean(),
    connected: z.boolean(),
    lastHeartbeatAt: z.string().optional(),
    features: z.array(z.string()),
    sandbox: z
      .object({
        available: z.boolean(),
        reason: z.string().optional(),
        limits: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
    os: z.string().optional(),
    arch: z.string().optional(),
    agentVersion: z.string().optional(),
    skills: z.record(z.string(), z.string()).openapi({ description: "name → full hash the node holds" }),
    runsInFlight: z.number().int(),
  })
  .openapi("NodeState");

const NodeEntrySchema = NodeStateSchema.pick({
  name: true,
  role: true,
  addedAt: true,
  enrolled: true,
  enrolledAt: true,
  enrolmentExpiresAt: true,
  locked: true,
}).openapi("NodeEntry");

const NodeNameParams = z.object({
  name: z.string().regex(NODE_NAME_PATTERN, "a node name").openapi({ description: "the node's name" }),
});

const AddNodeBodySchema = z
  .object({
    name: z.string().max(100),
    role: z
      .enum(["node", "worker"])
      .optional()
      .openapi({ description: "`worker` for a remote queue worker" }),
  })
  .strict();

const AddedNodeSchema = z
  .object({
    node: NodeEntrySchema,
    token: z.string().openapi({ description: "the one-time enrolment token: shown this once" }),
    expiresAt: z.string(),
    command: z.string().openapi({ description: "the command that enrols and starts the agent on the node" }),
  })
  .openapi("AddedNode");

/**
 * The owner's node routes (docs/http-api.md, "Nodes"): the registry in `<data>/nodes`, the
 * same one `skillgate nodes` edits, with each node's live state from this server's hub.
 */
export function nodesRoutes(context: ServerContext): OpenAPIHono {
  const app = routeApp(context);
  const nodesOf = (): NodeController => {
    if (context.nodes === undefined)
      throw new NodeError("controller_not_ready", "this server has no node controller");
    return context.nodes;
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/nodes",
      summary:
        "Every node with its live state: online, last heartbeat, features, skills held, runs in flight",
      responses: {
        200: jsonAnswer("the nodes, by name", z.object({ nodes: z.array(NodeStateSchema) })),
        500: errorAnswer("nodes_registry_corrupt"),
      },
    }),
    (c) => c.json({ nodes: wire(nodesOf().hub.states()) as z.infer<typeof NodeStateSchema>[] }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/nodes",
      summary: "Add a node: its one-time enrolment token (24 h) and the command that starts its agent",
      request: { body: { content: { "application/json": { schema: AddNodeBodySchema } }, required: true } },
      responses: {
        201: jsonAnswer("added", AddedNodeSchema),
        400: errorAnswer("invalid_node_name, invalid_argument"),
        409: errorAnswer("node_exists"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const added = await nodesOf().registry.add(
        body.name,
        body.role !== undefined ? { role: body.role } : {},
      );
      context.events.publish({ type: "node-changed", name: added.node.name });
      const controller = new URL(c.req.url).origin;
      return c.json(
        {
          node: wire(added.node) as z.infer<typeof NodeEntrySchema>,
          token: added.token,
          expiresAt: added.expiresAt,
          command: agentCommand(controller, added.node.name, added.token),
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/nodes/{name}",
      summary: "Remove a node: its credential stops working and its channel is closed now",
      request: { params: NodeNameParams },
      responses: {
        200: jsonAnswer("removed", z.object({ node: NodeEntrySchema })),
        404: errorAnswer("node_not_found"),
      },
    }),
    async (c) => {
      const removed = await nodesOf().removeNode(c.req.valid("param").name);
      context.events.publish({ type: "node-changed", name: removed.name });
      return c.json({ node: wire(removed) as z.infer<typeof NodeEntrySchema> }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/nodes/{name}/sync",
      summary: "Ask a node to run SkillSync now (sent: false when its channel is not open)",
      request: { params: NodeNameParams },
      responses: {
        200: jsonAnswer("asked", z.object({ node: NodeEntrySchema, sent: z.boolean() })),
        404: errorAnswer("node_not_found"),
      },
    }),
    (c) => {
      const synced = nodesOf().syncNode(c.req.valid("param").name);
      return c.json({ node: wire(synced.node) as z.infer<typeof NodeEntrySchema>, sent: synced.sent }, 200);
    },
  );

  return app;
}

/** The command that enrols a node and starts its agent (docs/nodes.md, "Enrolment"). */
export function agentCommand(controller: string, name: string, token: string): string {
  return `skillgate node-agent --controller ${controller} --name ${name} --enrol ${token}`;
}

function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
