import type { NotificationsConfig } from "../config/notifications-config.js";
import type { Logger } from "../observe/logger.js";
import { type ChannelOutcome, type OwnerNotice, sendNotice } from "../observe/notifications.js";

/** A listener told of every notice at once (a server turns them into live events). */
export type AuthoringListener = (notice: OwnerNotice) => void;

/**
 * Where every door that saves a draft or applies an edit reports it (the `draft_skill` and
 * `edit_skill` tools, `skillgate store approve`, the HTTP API): listeners in this process
 * hear of it at once, and the configured notification channels (docs/notifications.md) get
 * a message. Best effort both ways: a listener that throws and a channel that fails are
 * each dropped from this notice only, and a report never rejects.
 */
export class Authoring {
  readonly #listeners = new Set<AuthoringListener>();
  readonly #config: () => NotificationsConfig;
  readonly #logger: Logger;
  readonly #fetch: typeof fetch | undefined;

  /** `config` is read on each report, so an edited config.yaml applies to the next one. */
  constructor(options: {
    readonly config: () => NotificationsConfig;
    readonly logger: Logger;
    readonly fetch?: typeof fetch;
  }) {
    this.#config = options.config;
    this.#logger = options.logger;
    this.#fetch = options.fetch;
  }

  /** Starts telling `listener`; returns what stops it. */
  subscribe(listener: AuthoringListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Tells the listeners now, then sends the notice to every channel; resolves when each
   * channel answered, failed or timed out. Callers that must not wait (a model's tool call)
   * leave the promise alone; a command about to exit awaits it.
   */
  async report(notice: OwnerNotice): Promise<ChannelOutcome[]> {
    for (const listener of this.#listeners) {
      try {
        listener(notice);
      } catch {
        // A listener's failure is its own; the write it reports already happened.
      }
    }
    let config: NotificationsConfig;
    try {
      config = this.#config();
    } catch (error) {
      // A config.yaml broken since start-up: the write stands, the notice is not sent.
      this.#logger.warn("owner notification skipped", {
        error: error instanceof Error ? error.name : "unknown",
      });
      return [];
    }
    if (config.channels.length === 0) return [];
    return sendNotice(notice, {
      channels: config.channels,
      timeoutMs: config.timeoutSeconds * 1000,
      logger: this.#logger,
      ...(this.#fetch !== undefined ? { fetch: this.#fetch } : {}),
    });
  }
}
