/**
 * The part of a SQLite connection the chat log uses, in skillgate's own types. The chat log
 * runs on better-sqlite3, whose types are a development dependency only: declarations that
 * skillgate publishes name these instead, so a consumer's type check never needs
 * `@types/better-sqlite3`. A better-sqlite3 `Database` satisfies {@link SqliteDatabase}
 * (checked where the connection is opened, in chat-schema.ts).
 */

/** A prepared statement: parameters bound per call, rows typed by the caller. */
export interface SqliteStatement<Parameters extends unknown[] = unknown[], Row = unknown> {
  run(...parameters: Parameters): { readonly changes: number };
  get(...parameters: Parameters): Row | undefined;
  all(...parameters: Parameters): Row[];
  iterate(...parameters: Parameters): IterableIterator<Row>;
}

/** A function run as one transaction; `immediate` takes the write lock at the start. */
export interface SqliteTransaction<Result> {
  (): Result;
  immediate(): Result;
}

/** One open connection. */
export interface SqliteDatabase {
  // The same shape as better-sqlite3's: one object of named parameters, or a positional list.
  // biome-ignore lint/complexity/noBannedTypes: `{}` is what better-sqlite3 declares; anything else does not match it.
  prepare<Parameters extends unknown[] | {} = unknown[], Row = unknown>(
    source: string,
  ): Parameters extends unknown[] ? SqliteStatement<Parameters, Row> : SqliteStatement<[Parameters], Row>;
  transaction<Result>(work: () => Result): SqliteTransaction<Result>;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
}
