import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { ChatLogUnreadableError } from "./chat-input.js";
import type { SqliteDatabase } from "./sqlite-types.js";

/**
 * The chat database's schema and how it is opened. The version lives in SQLite's
 * `PRAGMA user_version`; each migration moves it up by one inside one immediate
 * transaction, so two processes opening a fresh file at once create it once.
 */

/** The schema version this skillgate writes. A file with a higher version is refused, never changed. */
export const CHAT_SCHEMA_VERSION = 1;
/** How long a statement waits for another process's write lock before failing: 5 seconds. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Version 1. `key` columns are internal row numbers; `chats.kind` + `chats.id` is the
 * public identity. Times are milliseconds since the epoch. `messages.chars` is the text's
 * length in UTF-16 units, kept because SQLite's `length()` stops at a NUL.
 */
const VERSION_1 = `
CREATE TABLE chats (
  key INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('chat', 'job')),
  id TEXT NOT NULL,
  title TEXT NOT NULL DEFAULT '',
  owner TEXT,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  declined INTEGER NOT NULL DEFAULT 0,
  expired INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  timed_out INTEGER NOT NULL DEFAULT 0,
  UNIQUE (kind, id)
);
CREATE INDEX chats_by_updated ON chats (updated DESC, key DESC);
CREATE TABLE messages (
  key INTEGER PRIMARY KEY,
  chat INTEGER NOT NULL REFERENCES chats (key) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  text TEXT NOT NULL,
  chars INTEGER NOT NULL,
  omitted INTEGER NOT NULL DEFAULT 0,
  time INTEGER NOT NULL
);
CREATE INDEX messages_by_chat ON messages (chat, key);
CREATE TABLE grants (
  chat INTEGER NOT NULL REFERENCES chats (key) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  PRIMARY KEY (chat, name)
) WITHOUT ROWID;
`;

/** Migrations by the version they produce; index 0 makes version 1. */
const MIGRATIONS: readonly string[] = [VERSION_1];

/**
 * Opens (creating on first use) the database at `file`: WAL journal (readers never wait
 * for a writer), `synchronous = NORMAL` (a power cut may lose the last writes, never
 * corrupt the file), foreign keys on, and the schema brought to {@link CHAT_SCHEMA_VERSION}.
 */
export function openChatDatabase(file: string, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): SqliteDatabase {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Typed as skillgate's own interface: a better-sqlite3 Database must fit it (checked here).
  let database: SqliteDatabase;
  try {
    database = new Database(file, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new ChatLogUnreadableError(file, reasonOf(error), { cause: error });
  }
  try {
    const deadline = Date.now() + busyTimeoutMs;
    // Switching to WAL and the first migration take locks that two processes opening a fresh
    // file can deadlock on; SQLite then answers SQLITE_BUSY at once instead of waiting.
    retryWhileBusy(() => database.pragma("journal_mode = WAL"), deadline);
    database.pragma("synchronous = NORMAL");
    database.pragma("foreign_keys = ON");
    retryWhileBusy(() => migrate(database, file), deadline);
    return database;
  } catch (error) {
    database.close();
    if (error instanceof ChatLogUnreadableError) throw error;
    throw new ChatLogUnreadableError(file, reasonOf(error), { cause: error });
  }
}

function migrate(database: SqliteDatabase, file: string): void {
  const current = userVersion(database);
  if (current === CHAT_SCHEMA_VERSION) return;
  if (current > CHAT_SCHEMA_VERSION) throw tooNew(file, current);
  database
    .transaction(() => {
      // Read again under the write lock: another process may have migrated meanwhile.
      let version = userVersion(database);
      if (version > CHAT_SCHEMA_VERSION) throw tooNew(file, version);
      for (; version < CHAT_SCHEMA_VERSION; version += 1) {
        const step = MIGRATIONS[version];
        if (step === undefined)
          throw new ChatLogUnreadableError(file, `no migration from version ${version}`);
        database.exec(step);
      }
      database.pragma(`user_version = ${CHAT_SCHEMA_VERSION}`);
    })
    .immediate();
}

/** Runs `step` until it does not fail with SQLITE_BUSY or the deadline passes. */
function retryWhileBusy(step: () => unknown, deadline: number): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      step();
      return;
    } catch (error) {
      const busy = (error as { code?: unknown }).code === "SQLITE_BUSY";
      if (!busy || Date.now() >= deadline) throw error;
      // A synchronous pause: better-sqlite3 is synchronous, and this runs once per open.
      Atomics.wait(PAUSE, 0, 0, Math.min(5 * attempt, 50));
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function userVersion(database: SqliteDatabase): number {
  return Number(database.pragma("user_version", { simple: true }));
}

function tooNew(file: string, version: number): ChatLogUnreadableError {
  return new ChatLogUnreadableError(
    file,
    `its schema version ${version} is newer than this skillgate's (${CHAT_SCHEMA_VERSION}); upgrade skillgate`,
  );
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
