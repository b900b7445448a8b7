import type { CapabilityReloads } from "../../app/capability-reloads.js";
import type { NodeController } from "../../nodes/controller/node-controller.js";
import type { Logger } from "../../observe/logger.js";
import type { Store } from "../../store/store.js";
import type { McpHost } from "../mcp/host.js";
import type { ServerEvents } from "./server-events.js";

/**
 * What every route of `skillgate serve` is given. One McpHost (and so one Skillgate: catalog,
 * store, chat log, broker, approval queue) serves `/api/*` and `/mcp` alike, so an ask made by an
 * MCP client is the same ask the web UI answers. Routes parse, call the core, and answer: the
 * owner's operations live in `src/app/` and `src/store/`, never in a route.
 */
export interface ServerContext {
  /** The MCP host: `host.skillgate` is the Skillgate every route uses. */
  readonly host: McpHost;
  /** The managed store, opened once for the server's life (it holds the store lock's users). */
  readonly store: Store;
  /** Live updates for `/api/events`; routes publish after a write succeeds. */
  readonly events: ServerEvents;
  /** Where the server's information lines go. */
  readonly logger: Logger;
  /** Named servers: the registry, the live hub and the manifests (docs/nodes.md); absent in route tests without nodes. */
  readonly nodes?: NodeController;
  /** The Lua skills' reloaders of this process (docs/capabilities.md, "Hot reload"); absent in route tests without them. */
  readonly reloads?: CapabilityReloads;
}
