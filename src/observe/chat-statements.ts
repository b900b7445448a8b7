import type { ChatKind, MessageRole } from "./chat-input.js";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-types.js";

/** A row of `chats`, as SQLite returns it. */
export interface ChatRow {
  readonly key: number;
  readonly kind: ChatKind;
  readonly id: string;
  readonly title: string;
  readonly owner: string | null;
  readonly created: number;
  readonly updated: number;
  readonly declined: number;
  readonly expired: number;
  readonly failed: number;
  readonly timed_out: number;
}

/** A row of `messages`, as read for a transcript. */
export interface MessageRow {
  readonly role: MessageRole;
  readonly text: string;
  readonly omitted: number;
  readonly time: number;
}

/** The four issue counts by their API names. */
export interface CountColumns {
  readonly declined: number;
  readonly expired: number;
  readonly failed: number;
  readonly timedOut: number;
}

interface Scope {
  readonly kind: ChatKind;
  readonly id: string;
}

/**
 * Every statement of the chat log, prepared once per connection. All take named or
 * positional parameters: no value is ever spliced into SQL text.
 */
export class ChatStatements {
  readonly database: SqliteDatabase;
  /** Creates the chat if missing and moves `updated` forward. */
  readonly touch: SqliteStatement<[Scope & { now: number }]>;
  /** Sets a title and owner when given (null keeps the old value). */
  readonly describe: SqliteStatement<[Scope & { title: string | null; owner: string | null }]>;
  readonly chat: SqliteStatement<[ChatKind, string], ChatRow>;
  readonly key: SqliteStatement<[ChatKind, string], { key: number }>;
  /** Adds to the counts, creating the chat if missing. */
  readonly count: SqliteStatement<[Scope & CountColumns & { now: number }]>;
  readonly message: SqliteStatement<
    [Scope & { role: MessageRole; text: string; chars: number; omitted: number; time: number }]
  >;
  readonly transcriptSize: SqliteStatement<[number], { messages: number; chars: number }>;
  readonly messages: SqliteStatement<[number], MessageRow>;
  /** A page of chats, newest first, after the (updated, key) of the last row of the previous page. */
  readonly list: SqliteStatement<
    [
      {
        owner: string | null;
        kind: ChatKind | null;
        withIssues: 0 | 1;
        afterUpdated: number | null;
        afterKey: number | null;
        limit: number;
      },
    ],
    ChatRow
  >;
  readonly grants: SqliteStatement<[ChatKind, string], { name: string }>;
  readonly addGrant: SqliteStatement<[Scope & { name: string; now: number }]>;
  readonly revokeGrant: SqliteStatement<[Scope & { name: string }]>;

  constructor(database: SqliteDatabase) {
    this.database = database;
    this.touch = database.prepare(
      `INSERT INTO chats (kind, id, created, updated) VALUES (@kind, @id, @now, @now)
       ON CONFLICT (kind, id) DO UPDATE SET updated = max(updated, excluded.updated)`,
    );
    this.describe = database.prepare(
      `UPDATE chats SET title = coalesce(@title, title), owner = coalesce(@owner, owner)
       WHERE kind = @kind AND id = @id`,
    );
    this.chat = database.prepare("SELECT * FROM chats WHERE kind = ? AND id = ?");
    this.key = database.prepare("SELECT key FROM chats WHERE kind = ? AND id = ?");
    this.count = database.prepare(
      `INSERT INTO chats (kind, id, created, updated, declined, expired, failed, timed_out)
       VALUES (@kind, @id, @now, @now, @declined, @expired, @failed, @timedOut)
       ON CONFLICT (kind, id) DO UPDATE SET
         declined = declined + excluded.declined,
         expired = expired + excluded.expired,
         failed = failed + excluded.failed,
         timed_out = timed_out + excluded.timed_out,
         updated = max(updated, excluded.updated)`,
    );
    this.message = database.prepare(
      `INSERT INTO messages (chat, role, text, chars, omitted, time)
       SELECT key, @role, @text, @chars, @omitted, @time FROM chats WHERE kind = @kind AND id = @id`,
    );
    this.transcriptSize = database.prepare(
      "SELECT count(*) AS messages, coalesce(sum(chars + omitted), 0) AS chars FROM messages WHERE chat = ?",
    );
    this.messages = database.prepare(
      "SELECT role, text, omitted, time FROM messages WHERE chat = ? ORDER BY key",
    );
    this.list = database.prepare(
      `SELECT * FROM chats
       WHERE (@owner IS NULL OR owner IS NULL OR owner = @owner)
         AND (@kind IS NULL OR kind = @kind)
         AND (@withIssues = 0 OR declined + expired + failed + timed_out > 0)
         AND (@afterKey IS NULL OR updated < @afterUpdated OR (updated = @afterUpdated AND key < @afterKey))
       ORDER BY updated DESC, key DESC
       LIMIT @limit`,
    );
    this.grants = database.prepare(
      `SELECT grants.name FROM grants JOIN chats ON chats.key = grants.chat
       WHERE chats.kind = ? AND chats.id = ? ORDER BY grants.name`,
    );
    this.addGrant = database.prepare(
      `INSERT OR IGNORE INTO grants (chat, name, created)
       SELECT key, @name, @now FROM chats WHERE kind = @kind AND id = @id`,
    );
    this.revokeGrant = database.prepare(
      `DELETE FROM grants
       WHERE name = @name AND chat = (SELECT key FROM chats WHERE kind = @kind AND id = @id)`,
    );
  }
}
