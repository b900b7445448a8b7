import { join } from "node:path";
import { type Clock, systemClock } from "../core/clock.js";
import { InvalidArgumentError } from "../core/errors.js";
import { SkillReviews } from "../store/reviews.js";
import {
  type ChatKind,
  type ChatRef,
  type ChatScope,
  capMessage,
  checkId,
  checkRole,
  checkScope,
  checkTime,
  cleanTitle,
  MAX_GRANT_LENGTH,
  type MessageRole,
} from "./chat-input.js";
import { DEFAULT_BUSY_TIMEOUT_MS, openChatDatabase } from "./chat-schema.js";
import { type ChatRow, ChatStatements, type CountColumns } from "./chat-statements.js";
import { readTranscript, type Transcript, type TranscriptOptions } from "./chat-transcript.js";
import type { CallStatus } from "./events.js";
import type { SqliteDatabase } from "./sqlite-types.js";

/** The database's name inside the data folder. */
export const CHAT_DATABASE_FILE = "chats.db";
/** Chats {@link ChatLog.listChats} returns when no limit is given. */
export const DEFAULT_CHAT_LIST_LIMIT = 50;
/** The most chats one {@link ChatLog.listChats} returns. */
export const MAX_CHAT_LIST_LIMIT = 1_000;

/** The calls that went wrong in a chat (docs/audit.md, "The chat database", issue counts). */
export interface ChatCounts {
  readonly declined: number;
  readonly expired: number;
  readonly failed: number;
  readonly timedOut: number;
}

/** One chat or job as listed. */
export interface ChatSummary {
  readonly kind: ChatKind;
  readonly id: string;
  readonly title: string;
  readonly owner?: string;
  /** ISO times. */
  readonly created: string;
  readonly updated: string;
  readonly counts: ChatCounts;
  /** The four counts added up. */
  readonly issues: number;
  /** Reviewed for skill ideas by the owner asked about (or the chat's own owner). */
  readonly reviewed: boolean;
}

/** Which chats {@link ChatLog.listChats} returns, newest activity first. */
export interface ListChatsOptions {
  /** Chats of this owner, and chats with no owner recorded; whose reviews decide `reviewed`. */
  readonly owner?: string;
  /** Include chats already reviewed (default false: a review skips them). */
  readonly includeReviewed?: boolean;
  /** Only chats with at least one declined, expired, failed or timed-out call. */
  readonly withIssuesOnly?: boolean;
  /** Only chats or only jobs (default: both). */
  readonly kind?: ChatKind;
  /** 1 to {@link MAX_CHAT_LIST_LIMIT}; default {@link DEFAULT_CHAT_LIST_LIMIT}. */
  readonly limit?: number;
}

/** Where reviewed chats are read from: the store's reviews file (`SkillReviews`) fits. */
export interface ReviewsReader {
  reviewedChats(owner: string): Promise<readonly { readonly chat: string }[]>;
}

/** Options of {@link ChatLog.open}. */
export interface ChatLogOptions {
  /** The data folder; the database is `<dataFolder>/chats.db`. */
  readonly dataFolder: string;
  /** Reviewed chats; default the store's reviews file, `<dataFolder>/skills/skill-reviews.json`. */
  readonly reviews?: ReviewsReader;
  readonly clock?: Clock;
  /** How long a write waits for another process's lock; default 5 seconds. */
  readonly busyTimeoutMs?: number;
}

/** A message to append to a transcript. */
export interface NewMessage {
  readonly role: MessageRole;
  readonly text: string;
  /** Default now. */
  readonly time?: Date | number | string;
}

const COUNTED: Partial<Record<CallStatus, keyof CountColumns>> = {
  declined: "declined",
  expired: "expired",
  failed: "failed",
  timed_out: "timedOut",
};

/**
 * Chats and jobs in `<data>/chats.db` (SQLite): their issue counts, transcripts and the
 * grants answered "always" in them. Every method is one statement or one transaction, so
 * several processes (a CLI, a server) share the file safely and see each other's writes
 * at once. Ids are checked (`invalid_argument`); texts are capped (see chat-input.ts).
 */
export class ChatLog {
  /** The database file. */
  readonly file: string;
  readonly #database: SqliteDatabase;
  readonly #statements: ChatStatements;
  readonly #reviews: ReviewsReader;
  readonly #clock: Clock;

  private constructor(file: string, database: SqliteDatabase, options: ChatLogOptions) {
    this.file = file;
    this.#database = database;
    this.#statements = new ChatStatements(database);
    this.#reviews = options.reviews ?? new SkillReviews(join(options.dataFolder, "skills"));
    this.#clock = options.clock ?? systemClock;
  }

  /** Opens the chat database, creating it (and the data folder) on first use. */
  static open(options: ChatLogOptions): ChatLog {
    const file = join(options.dataFolder, CHAT_DATABASE_FILE);
    return new ChatLog(
      file,
      openChatDatabase(file, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS),
      options,
    );
  }

  /** Closes the database; the log cannot be used after. */
  close(): void {
    this.#database.close();
  }

  /**
   * Records a chat or job (or updates it): a given title replaces the old one, a given
   * owner is set. Returns the chat as it now is.
   */
  openChat(ref: ChatRef, details: { title?: string; owner?: string } = {}): ChatSummary {
    const scope = checkScope(ref);
    const title = details.title === undefined ? null : cleanTitle(details.title);
    const owner = details.owner === undefined ? null : checkId(details.owner, "owner");
    const now = this.#clock.now();
    const row = this.#database.transaction(() => {
      this.#statements.touch.run({ kind: scope.kind, id: scope.id, now });
      this.#statements.describe.run({ kind: scope.kind, id: scope.id, title, owner });
      return this.#statements.chat.get(scope.kind, scope.id);
    })();
    if (row === undefined) throw new Error(`chat ${scope.id} vanished inside its own transaction`);
    return summaryOf(row, false);
  }

  /** The chat or job, or undefined when none was recorded. `reviewed` is not looked up here. */
  getChat(ref: ChatRef): ChatSummary | undefined {
    const scope = checkScope(ref);
    const row = this.#statements.chat.get(scope.kind, scope.id);
    return row === undefined ? undefined : summaryOf(row, false);
  }

  /**
   * Counts a finished call's outcome: `declined`, `expired`, `failed` and `timed_out` add
   * one to that count (creating the chat if needed); other statuses count nothing. Returns
   * whether something was counted.
   */
  recordOutcome(ref: ChatRef, status: CallStatus): boolean {
    const scope = checkScope(ref, "scope");
    const column = COUNTED[status];
    if (column === undefined) return false;
    this.#statements.count.run({
      kind: scope.kind,
      id: scope.id,
      now: this.#clock.now(),
      declined: column === "declined" ? 1 : 0,
      expired: column === "expired" ? 1 : 0,
      failed: column === "failed" ? 1 : 0,
      timedOut: column === "timedOut" ? 1 : 0,
    });
    return true;
  }

  /** Appends a message to the transcript (creating the chat if needed); the text is capped. */
  appendMessage(ref: ChatRef, message: NewMessage): void {
    const scope = checkScope(ref);
    const role = checkRole(message.role);
    const { text, omittedChars } = capMessage(message.text);
    const now = this.#clock.now();
    const time = message.time === undefined ? now : checkTime(message.time, "time");
    this.#database.transaction(() => {
      this.#statements.touch.run({ kind: scope.kind, id: scope.id, now });
      this.#statements.message.run({
        kind: scope.kind,
        id: scope.id,
        role,
        text,
        chars: text.length,
        omitted: omittedChars,
        time,
      });
    })();
  }

  /** The transcript, clipped to `maxChars` of text with a note; undefined for an unknown chat. */
  readTranscript(ref: ChatRef, options: TranscriptOptions = {}): Transcript | undefined {
    return readTranscript(this.#statements, checkScope(ref), options);
  }

  /**
   * Chats by latest activity, newest first, with their counts. Reviewed chats (in the
   * reviews file, for `owner` or else each chat's own owner) are left out unless
   * `includeReviewed`.
   */
  async listChats(options: ListChatsOptions = {}): Promise<ChatSummary[]> {
    const owner = options.owner === undefined ? undefined : checkId(options.owner, "owner");
    const limit = options.limit ?? DEFAULT_CHAT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_CHAT_LIST_LIMIT)
      throw new InvalidArgumentError(
        "limit",
        `limit must be a whole number from 1 to ${MAX_CHAT_LIST_LIMIT}`,
      );
    if (options.kind !== undefined && options.kind !== "chat" && options.kind !== "job")
      throw new InvalidArgumentError("kind", 'kind must be "chat" or "job"');
    const reviewedBy = new Map<string, Set<string>>();
    const reviewed = async (row: ChatRow): Promise<boolean> => {
      const reviewer = owner ?? row.owner;
      if (reviewer === null) return false;
      let chats = reviewedBy.get(reviewer);
      if (chats === undefined) {
        chats = new Set((await this.#reviews.reviewedChats(reviewer)).map((entry) => entry.chat));
        reviewedBy.set(reviewer, chats);
      }
      return chats.has(row.id);
    };
    // Rows are read in pages, so no statement stays open across the awaits of the reviews
    // file; each page starts after the last row of the one before, so rows written meanwhile
    // neither repeat nor push others out.
    const found: ChatSummary[] = [];
    let after: ChatRow | undefined;
    while (found.length < limit) {
      const rows = this.#statements.list.all({
        owner: owner ?? null,
        kind: options.kind ?? null,
        withIssues: options.withIssuesOnly ? 1 : 0,
        afterUpdated: after?.updated ?? null,
        afterKey: after?.key ?? null,
        limit: PAGE,
      });
      for (const row of rows) {
        const isReviewed = await reviewed(row);
        if (isReviewed && !options.includeReviewed) continue;
        found.push(summaryOf(row, isReviewed));
        if (found.length === limit) break;
      }
      after = rows.at(-1);
      if (rows.length < PAGE) break;
    }
    return found;
  }

  /** The grants held in a chat or job (`skill:<name>@<hash8>`, …). */
  grants(ref: ChatRef): Set<string> {
    const scope = checkScope(ref, "scope");
    return new Set(this.#statements.grants.all(scope.kind, scope.id).map((row) => row.name));
  }

  /** Stores a grant for a chat or job (creating it if needed); true when it was not held. */
  addGrant(ref: ChatRef, grant: string): boolean {
    const scope = checkScope(ref, "scope");
    const name = checkId(grant, "grant", MAX_GRANT_LENGTH);
    const now = this.#clock.now();
    return this.#database.transaction(() => {
      this.#statements.touch.run({ kind: scope.kind, id: scope.id, now });
      return this.#statements.addGrant.run({ kind: scope.kind, id: scope.id, name, now }).changes > 0;
    })();
  }

  /** Removes a grant; true when it was held. */
  revokeGrant(ref: ChatRef, grant: string): boolean {
    const scope = checkScope(ref, "scope");
    const name = checkId(grant, "grant", MAX_GRANT_LENGTH);
    return this.#statements.revokeGrant.run({ kind: scope.kind, id: scope.id, name }).changes > 0;
  }
}

const PAGE = 200;

function summaryOf(row: ChatRow, reviewed: boolean): ChatSummary {
  const counts: ChatCounts = {
    declined: row.declined,
    expired: row.expired,
    failed: row.failed,
    timedOut: row.timed_out,
  };
  return {
    kind: row.kind,
    id: row.id,
    title: row.title,
    ...(row.owner === null ? {} : { owner: row.owner }),
    created: new Date(row.created).toISOString(),
    updated: new Date(row.updated).toISOString(),
    counts,
    issues: counts.declined + counts.expired + counts.failed + counts.timedOut,
    reviewed,
  };
}

export type { ChatKind, ChatRef, ChatScope, MessageRole };
