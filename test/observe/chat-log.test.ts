import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { chatIssuesSink } from "../../src/observe/audit-sinks.js";
import { MAX_CHAT_TITLE_CHARS } from "../../src/observe/chat-input.js";
import { CHAT_DATABASE_FILE, ChatLog } from "../../src/observe/chat-log.js";
import { CHAT_SCHEMA_VERSION } from "../../src/observe/chat-schema.js";
import type { AuditEvent, CallStatus } from "../../src/observe/events.js";
import { SkillReviews } from "../../src/store/reviews.js";
import { makeTree } from "../helpers/skill-tree.js";

const opened: ChatLog[] = [];

afterEach(() => {
  for (const log of opened.splice(0)) log.close();
});

/** A chat log in a fresh data folder (closed after the test). */
function openLog(options: { dataFolder?: string; clock?: ManualClock } = {}): ChatLog {
  const log = ChatLog.open({
    dataFolder: options.dataFolder ?? makeTree("skillgate-chats-"),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  opened.push(log);
  return log;
}

/** Reads the database directly, the way another tool would. */
function raw<T>(file: string, sql: string): T {
  const database = new Database(file, { readonly: true });
  try {
    return database.prepare(sql).get() as T;
  } finally {
    database.close();
  }
}

const START = Date.parse("2026-01-02T03:04:05.000Z");

describe("ChatLog: the database", () => {
  it("is created on first use at <data>/chats.db in WAL mode with the schema version", () => {
    const data = join(makeTree("skillgate-chats-"), "data");
    const log = openLog({ dataFolder: data });
    expect(log.file).toBe(join(data, CHAT_DATABASE_FILE));
    expect(existsSync(log.file)).toBe(true);
    const database = new Database(log.file, { readonly: true });
    try {
      expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(database.pragma("user_version", { simple: true })).toBe(CHAT_SCHEMA_VERSION);
      const tables = database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[];
      expect(tables.map((table) => table.name)).toEqual(["chats", "grants", "messages"]);
    } finally {
      database.close();
    }
  });

  it("opening it again keeps what was written (a restart)", () => {
    const data = makeTree("skillgate-chats-");
    const first = ChatLog.open({ dataFolder: data });
    first.openChat("c1", { title: "Disk space" });
    first.addGrant("c1", "skill:disk-usage@0123abcd");
    first.close();
    const second = openLog({ dataFolder: data });
    expect(second.getChat("c1")?.title).toBe("Disk space");
    expect(second.grants("c1")).toEqual(new Set(["skill:disk-usage@0123abcd"]));
  });

  it("refuses a database of a newer schema with chat_log_unreadable and leaves it as it was", () => {
    const data = makeTree("skillgate-chats-");
    const file = join(data, CHAT_DATABASE_FILE);
    const newer = new Database(file);
    newer.pragma(`user_version = ${CHAT_SCHEMA_VERSION + 1}`);
    newer.close();
    expect(() => ChatLog.open({ dataFolder: data })).toThrow(
      expect.objectContaining({ code: "chat_log_unreadable" }),
    );
    expect(raw<{ n: number }>(file, "SELECT count(*) AS n FROM sqlite_master").n).toBe(0);
    expect(raw<{ user_version: number }>(file, "PRAGMA user_version").user_version).toBe(
      CHAT_SCHEMA_VERSION + 1,
    );
  });

  it("refuses a file that is not a database with chat_log_unreadable and does not overwrite it", () => {
    const data = makeTree("skillgate-chats-");
    const file = join(data, CHAT_DATABASE_FILE);
    const text = "not a database, but somebody's notes\n".repeat(200);
    writeFileSync(file, text);
    expect(() => ChatLog.open({ dataFolder: data })).toThrow(
      expect.objectContaining({ code: "chat_log_unreadable" }),
    );
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

describe("ChatLog: chats and counts", () => {
  it("openChat records a chat with title and owner, and later calls update them", () => {
    const clock = new ManualClock(START);
    const log = openLog({ clock });
    const created = log.openChat("c1", { title: "Disk space", owner: "alice" });
    expect(created).toEqual({
      kind: "chat",
      id: "c1",
      title: "Disk space",
      owner: "alice",
      created: "2026-01-02T03:04:05.000Z",
      updated: "2026-01-02T03:04:05.000Z",
      counts: { declined: 0, expired: 0, failed: 0, timedOut: 0 },
      issues: 0,
      reviewed: false,
    });
    clock.advance(1_000);
    const renamed = log.openChat("c1", { title: "Disk space on homelab01" });
    expect(renamed).toMatchObject({ title: "Disk space on homelab01", owner: "alice" });
    expect(renamed.updated).toBe("2026-01-02T03:04:06.000Z");
    expect(renamed.created).toBe(created.created);
    expect(log.getChat({ kind: "job", id: "c1" })).toBeUndefined();
  });

  it("a title is kept on one line and cut", () => {
    const log = openLog();
    expect(log.openChat("c1", { title: "one\ntwo\u0000three" }).title).toBe("one two three");
    expect(log.openChat("c2", { title: "é".repeat(500) }).title).toBe("é".repeat(MAX_CHAT_TITLE_CHARS));
  });

  it.each<[CallStatus, boolean]>([
    ["declined", true],
    ["expired", true],
    ["failed", true],
    ["timed_out", true],
    ["ok", false],
    ["refused", false],
    ["denied", false],
    ["interrupted", false],
  ])("recordOutcome(%s) counts: %s", (status, counted) => {
    const log = openLog();
    expect(log.recordOutcome({ kind: "chat", id: "c1" }, status)).toBe(counted);
    expect(log.recordOutcome("c1", status)).toBe(counted);
    const chat = log.getChat("c1");
    if (!counted) {
      expect(chat).toBeUndefined();
      return;
    }
    const key = status === "timed_out" ? "timedOut" : status;
    expect(chat?.counts).toEqual({ declined: 0, expired: 0, failed: 0, timedOut: 0, [key]: 2 });
    expect(chat?.issues).toBe(2);
  });

  it("counts chats and jobs apart, and from finished-call audit events only", () => {
    const log = openLog();
    const sink = chatIssuesSink(log);
    const base = {
      time: "2026-01-02T03:04:05.000Z",
      requestId: "r",
      tool: "run_skill_script",
      tier: "change",
    } as const;
    const events: AuditEvent[] = [
      { ...base, type: "approval-answered", scope: { kind: "chat", id: "c1" }, answer: "decline" },
      { ...base, type: "tool-call-finished", scope: { kind: "chat", id: "c1" }, status: "declined" },
      { ...base, type: "tool-call-finished", scope: { kind: "chat", id: "c1" }, status: "ok" },
      { ...base, type: "tool-call-finished", scope: { kind: "chat", id: "c1" }, status: "timed_out" },
      { ...base, type: "tool-call-finished", scope: { kind: "job", id: "c1" }, status: "expired" },
      { ...base, type: "tool-call-finished", scope: { kind: "job", id: "c1" }, status: "failed" },
    ];
    for (const event of events) sink.record(event);
    expect(log.getChat("c1")?.counts).toEqual({ declined: 1, expired: 0, failed: 0, timedOut: 1 });
    expect(log.getChat({ kind: "job", id: "c1" })?.counts).toEqual({
      declined: 0,
      expired: 1,
      failed: 1,
      timedOut: 0,
    });
  });
});

describe("ChatLog: listChats", () => {
  it("lists by latest activity, newest first, with limit, kind and withIssuesOnly", async () => {
    const clock = new ManualClock(START);
    const log = openLog({ clock });
    for (const id of ["a", "b", "c"]) {
      log.openChat(id);
      clock.advance(1_000);
    }
    log.openChat({ kind: "job", id: "nightly" });
    clock.advance(1_000);
    log.appendMessage("a", { role: "user", text: "again" });
    clock.advance(1_000);
    log.recordOutcome("b", "failed");
    const ids = (chats: { id: string }[]) => chats.map((chat) => chat.id);
    expect(ids(await log.listChats())).toEqual(["b", "a", "nightly", "c"]);
    expect(ids(await log.listChats({ limit: 2 }))).toEqual(["b", "a"]);
    expect(ids(await log.listChats({ kind: "job" }))).toEqual(["nightly"]);
    expect(ids(await log.listChats({ kind: "chat", withIssuesOnly: true }))).toEqual(["b"]);
  });

  it("an owner sees their chats and chats without an owner", async () => {
    const log = openLog();
    log.openChat("mine", { owner: "alice" });
    log.openChat("theirs", { owner: "bob" });
    log.openChat("shared");
    const ids = async (owner?: string) =>
      (await log.listChats(owner === undefined ? {} : { owner })).map((chat) => chat.id).sort();
    expect(await ids("alice")).toEqual(["mine", "shared"]);
    expect(await ids("bob")).toEqual(["shared", "theirs"]);
    expect(await ids()).toEqual(["mine", "shared", "theirs"]);
  });

  it("leaves out chats in the store's reviews file unless asked, across pages", async () => {
    const clock = new ManualClock(START);
    const data = makeTree("skillgate-chats-");
    const log = openLog({ dataFolder: data, clock });
    // 450 chats: the newest 300 reviewed by alice, so the first unreviewed is on the second page.
    for (let index = 0; index < 450; index += 1) {
      log.openChat(`c${index}`, { owner: "alice" });
      clock.advance(1);
    }
    mkdirSync(join(data, "skills"));
    const reviews = new SkillReviews(join(data, "skills"));
    await reviews.markChatsReviewed(
      "alice",
      Array.from({ length: 300 }, (_, index) => `c${449 - index}`),
    );
    const unreviewed = await log.listChats({ owner: "alice", limit: 100 });
    expect(unreviewed.map((chat) => chat.id)).toEqual(
      Array.from({ length: 100 }, (_, index) => `c${149 - index}`),
    );
    expect(unreviewed.every((chat) => !chat.reviewed)).toBe(true);
    const all = await log.listChats({ owner: "alice", includeReviewed: true, limit: 3 });
    expect(all.map((chat) => [chat.id, chat.reviewed])).toEqual([
      ["c449", true],
      ["c448", true],
      ["c447", true],
    ]);
    // Without an owner asked about, each chat's own owner's reviews apply.
    expect((await log.listChats({ limit: 1 }))[0]?.id).toBe("c149");
    // Bob has reviewed nothing; alice's chats are not his to list.
    expect(await log.listChats({ owner: "bob" })).toEqual([]);
  });

  it("takes reviews from any reader given", async () => {
    const log = ChatLog.open({
      dataFolder: makeTree("skillgate-chats-"),
      reviews: { reviewedChats: async (owner) => (owner === "alice" ? [{ chat: "done" }] : []) },
    });
    opened.push(log);
    log.openChat("done", { owner: "alice" });
    log.openChat("open", { owner: "alice" });
    expect((await log.listChats({ owner: "alice" })).map((chat) => chat.id)).toEqual(["open"]);
  });

  it.each([
    [{ limit: 0 }, "limit"],
    [{ limit: 1_001 }, "limit"],
    [{ limit: 2.5 }, "limit"],
    [{ owner: "" }, "owner"],
    [{ owner: "a\u0000b" }, "owner"],
    [{ kind: "team" }, "kind"],
  ])("refuses %j with invalid_argument", async (options, argument) => {
    const log = openLog();
    await expect(log.listChats(options as never)).rejects.toMatchObject({
      code: "invalid_argument",
      data: { argument },
    });
  });
});
