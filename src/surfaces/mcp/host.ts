import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bootstrapSkillgate } from "../../app/bootstrap.js";
import type { Skillgate, SkillgateOptions } from "../../app/skillgate.js";
import {
  type CatalogChange,
  type CatalogWatch,
  type CatalogWatchStatus,
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
  /** Watch the extension folders and hooks files, reloading on a change (default false). */
  readonly watchExtensions?: boolean;
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
  readonly #stopExtensions: () => void;

  private constructor(
    options: McpHostOptions,
    logger: Logger,
    skillgate: Skillgate,
    approvals: McpApprovals,
  ) {
    this.#options = options;
    this.#logger = logger;
    this.#version = packageVersion();
    this.skillgate = skillgate;
    this.approvals = approvals;
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
    this.#stopExtensions = this.#followExtensions(options.watchExtensions === true);
  }

  /**
   * Builds skillgate from `options` through the bootstrap (app/bootstrap.ts): the configuration
   * is read now (a malformed file throws `invalid_config`), and the extensions and hooks files
   * are loaded (the owner's `<config>/extensions`, a project's only with the opt-in) before
   * any session can call a tool. Each file's note is logged.
   */
  static async open(options: McpHostOptions = {}): Promise<McpHost> {
    const logger = options.logger ?? silentLogger;
    let queue: Approver | undefined;
    let dataFolder = "";
    const approvals = new McpApprovals(
      options.deferred ??
        ((request, call) => {
          queue ??= ApprovalQueue.open({ dataFolder }).deferredApprover();
          return queue(request, call);
        }),
    );
    const skillgate = await bootstrapSkillgate({ ...options, logger, approve: approvals.approve });
    dataFolder = skillgate.catalog.folders.data;
    for (const note of skillgate.extensions.registry.notes) logger.info("extension", { note });
    return new McpHost(options, logger, skillgate, approvals);
  }

  /** What the extension and hooks files' load said, one note per file. */
  get extensionNotes(): readonly string[] {
    return this.skillgate.extensions.registry.notes;
  }

  /**
   * From now on tells every session when the extensions' tools change (a reload, or with
   * `watch` a changed file). Returns what stops it.
   */
  #followExtensions(watch: boolean): () => void {
    const extensions = this.skillgate.extensions;
    let pending: NodeJS.Timeout | undefined;
    const unsubscribe = extensions.registry.onChange(() => {
      // A reload registers many things at once: one notification for the lot.
      clearTimeout(pending);
      pending = setTimeout(() => {
        for (const session of this.#sessions.values()) void session.extensionsChanged();
      }, 50);
      pending.unref();
    });
    const unwatch = watch ? extensions.watch() : undefined;
    return () => {
      clearTimeout(pending);
      unsubscribe();
      unwatch?.();
    };
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

  /** What the catalog watch covers now; `undefined` when the host runs without one. */
  catalogWatchStatus(): CatalogWatchStatus | undefined {
    return this.#watch?.status();
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
    this.#stopExtensions();
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
