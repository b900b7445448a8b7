import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillgate, type Skillgate, type SkillgateOptions } from "../../app/skillgate.js";
import {
  type CatalogChange,
  type CatalogWatch,
  DEFAULT_WATCH_INTERVAL_MS,
  watchCatalog,
} from "../../catalog/watch.js";
import { describeError } from "../../core/errors.js";
import { packageRoot } from "../../core/package-root.js";
import { type Logger, silentLogger } from "../../observe/logger.js";
import { ApprovalQueue } from "../../policy/approval-queue.js";
import type { Approver } from "../../tools/broker.js";
import { McpApprovals } from "./approvals.js";
import { createMcpSession, type McpSession } from "./session.js";

/** Options of {@link McpHost.open}: skillgate's own, minus the approver, which the host provides. */
export interface McpHostOptions extends Omit<SkillgateOptions, "approve" | "logger"> {
  /** `chat` (default) or `plan`: every session's turn mode. */
  readonly mode?: "chat" | "plan";
  /**
   * The catalog watch's slow re-check interval while file-system notifications do not cover
   * every searched folder (default {@link DEFAULT_WATCH_INTERVAL_MS}; catalog/watch.ts);
   * `false` for no watch: no `list_changed` notifications, and every call looks at the tree.
   */
  readonly watchIntervalMs?: number | false;
  /**
   * Answers approval requests of sessions whose client cannot be asked (no elicitation).
   * Default: the approval queue in the data folder, so the owner answers with
   * `skillgate approve ID` and the model's identical retry runs.
   */
  readonly deferred?: Approver;
  /** Where information lines go (default none; the CLI passes stderr, never stdout, which stdio keeps for protocol messages). */
  readonly logger?: Logger;
}

/**
 * What serves MCP sessions over any transport: one Skillgate (catalog, store, chat log,
 * broker) shared by every session, one approver routing each request to its session, and
 * one catalog watch whose changes reach every session as `list_changed` notifications.
 */
export class McpHost {
  readonly skillgate: Skillgate;
  readonly approvals: McpApprovals;
  readonly #options: McpHostOptions;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, McpSession>();
  readonly #watch: CatalogWatch | undefined;
  readonly #version: string;
  #closed = false;
  #stopExtensions: (() => void) | undefined;

  private constructor(options: McpHostOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#version = packageVersion();
    let queue: Approver | undefined;
    this.approvals = new McpApprovals(
      options.deferred ??
        ((request, call) => {
          queue ??= ApprovalQueue.open({
            dataFolder: this.skillgate.catalog.folders.data,
          }).deferredApprover();
          return queue(request, call);
        }),
    );
    this.skillgate = createSkillgate({ ...options, logger: this.#logger, approve: this.approvals.approve });
    this.#watch =
      options.watchIntervalMs === false
        ? undefined
        : watchCatalog(this.skillgate.catalog, {
            intervalMs: options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS,
            onChange: (change) => this.#catalogChanged(change),
            onError: (error) => this.#logger.warn("catalog look failed", { error: describeError(error) }),
            onIncomplete: (reason) =>
              this.#logger.warn("catalog notifications incomplete: the slow re-check covers the rest", {
                reason,
              }),
          });
  }

  /** Builds skillgate from `options` (reading the configuration now: a malformed file throws `invalid_config`). */
  static open(options: McpHostOptions = {}): McpHost {
    return new McpHost(options);
  }

  /**
   * Loads the extensions and hooks files (the owner's `<config>/extensions`, a project's only
   * with the opt-in), logs each file's note, and from then on tells every session when the
   * extensions' tools change (a reload, or with `watch` a changed file). Returns the notes.
   */
  async loadExtensions(options: { watch?: boolean } = {}): Promise<string[]> {
    const extensions = this.skillgate.extensions;
    const notes = await extensions.load();
    for (const note of notes) this.#logger.info("extension", { note });
    let pending: NodeJS.Timeout | undefined;
    const unsubscribe = extensions.registry.onChange(() => {
      // A reload registers many things at once: one notification for the lot.
      clearTimeout(pending);
      pending = setTimeout(() => {
        for (const session of this.#sessions.values()) void session.extensionsChanged();
      }, 50);
      pending.unref();
    });
    const unwatch = options.watch === true ? extensions.watch() : undefined;
    this.#stopExtensions = () => {
      clearTimeout(pending);
      unsubscribe();
      unwatch?.();
    };
    return notes;
  }

  /** A new session, its chat `mcp-<id>`; connect its `server` to a transport. */
  openSession(sessionId: string = randomUUID()): McpSession {
    const session = createMcpSession({
      skillgate: this.skillgate,
      approvals: this.approvals,
      sessionId,
      ...(this.#options.mode !== undefined ? { mode: this.#options.mode } : {}),
      serverVersion: this.#version,
      logger: this.#logger,
    });
    this.#sessions.set(sessionId, session);
    return session;
  }

  /** A session by id, while it is open. */
  session(sessionId: string): McpSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Closes one session. */
  async closeSession(sessionId: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#sessions.delete(sessionId);
    await session.close();
  }

  /** Looks at the catalog now (outside the watch's timer) and notifies sessions of a change. */
  checkCatalog(): CatalogChange | undefined {
    return this.#watch?.check();
  }

  /** Stops watching, closes every session and the chat database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watch?.stop();
    this.#stopExtensions?.();
    await Promise.all([...this.#sessions.keys()].map((id) => this.closeSession(id)));
    this.skillgate.close();
  }

  #catalogChanged(change: CatalogChange): void {
    this.#logger.info("catalog changed", {
      added: change.added.length,
      removed: change.removed.length,
      changed: change.changed.length,
    });
    for (const session of this.#sessions.values()) void session.catalogChanged();
  }
}

/** The package's version, for the server's `serverInfo`. */
function packageVersion(): string {
  try {
    const text = readFileSync(join(packageRoot(), "package.json"), "utf8");
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
