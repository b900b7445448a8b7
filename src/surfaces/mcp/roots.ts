import { fileURLToPath } from "node:url";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { RootsListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describeError } from "../../core/errors.js";
import type { Logger } from "../../observe/logger.js";

/** How long a call waits for the client's first answer to `roots/list` before it runs without a workspace. */
const FIRST_ROOTS_WAIT_MS = 5_000;

/** The session's workspace as the client names it: its first `file:` root. */
export interface ClientWorkspace {
  /** The workspace now: the first root's folder, or `undefined` when the client has none. */
  current(): string | undefined;
  /** Settles once the first `roots/list` answered, failed or took too long; calls wait on it. */
  ready(): Promise<void>;
}

/**
 * Follows the client's roots (docs/mcp.md, "The workspace"): once the session is initialized,
 * a client that declares the `roots` capability is asked for `roots/list`, and asked again on
 * each `notifications/roots/list_changed`. The first root with a `file:` URI is the turn's
 * workspace; other schemes are ignored. A client without the capability gives none.
 */
export function followClientRoots(server: Server, logger: Logger, sessionId: string): ClientWorkspace {
  let workspace: string | undefined;
  let settle: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const refresh = async (): Promise<void> => {
    if (server.getClientCapabilities()?.roots === undefined) return;
    try {
      const { roots } = await server.listRoots(undefined, { timeout: FIRST_ROOTS_WAIT_MS });
      workspace = firstFolder(roots.map((root) => root.uri));
    } catch (error) {
      logger.warn("mcp roots/list failed", { session: sessionId, error: describeError(error) });
    }
  };
  server.oninitialized = () => {
    void refresh().finally(settle);
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await refresh();
  });
  return {
    current: () => workspace,
    ready: () => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FIRST_ROOTS_WAIT_MS);
        timer.unref();
      });
      return Promise.race([first, waited]).finally(() => clearTimeout(timer));
    },
  };
}

/** The folder of the first `file:` URI, or `undefined`. */
export function firstFolder(uris: readonly string[]): string | undefined {
  for (const uri of uris) {
    if (!uri.startsWith("file:")) continue;
    try {
      return fileURLToPath(uri);
    } catch {
      // A file: URI with a host or a bad escape is no local folder.
    }
  }
  return undefined;
}
