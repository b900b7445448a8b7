import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { CHAT_DATABASE_FILE, ChatLog } from "../../src/observe/chat-log.js";
import { makeTree } from "../helpers/skill-tree.js";
import { runTogether } from "./children/run-child.js";

const opened: ChatLog[] = [];

afterEach(() => {
  for (const log of opened.splice(0)) log.close();
});

function openLog(dataFolder: string): ChatLog {
  const log = ChatLog.open({ dataFolder });
  opened.push(log);
  return log;
}

/** Rows per table, read the way another tool would. */
function rowCounts(dataFolder: string): Record<string, number> {
  const database = new Database(join(dataFolder, CHAT_DATABASE_FILE), { readonly: true });
  try {
    const count = (table: string) =>
      (database.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { chats: count("chats"), messages: count("messages"), grants: count("grants") };
  } finally {
    database.close();
  }
}

const GRANT = "skill:disk-usage@0123abcd";

describe("ChatLog: grants", () => {
  it("a grant added by one instance is seen by another on the same file, and so is its revocation", () => {
    const data = makeTree("skillgate-chats-");
    const server = openLog(data);
    const cli = openLog(data);
    expect(cli.grants("c1")).toEqual(new Set());
    expect(server.addGrant("c1", GRANT)).toBe(true);
    expect(server.addGrant("c1", GRANT)).toBe(false);
    expect(cli.grants("c1")).toEqual(new Set([GRANT]));
    expect(cli.grants({ kind: "chat", id: "c1" })).toEqual(new Set([GRANT]));
    expect(cli.revokeGrant("c1", GRANT)).toBe(true);
    expect(cli.revokeGrant("c1", GRANT)).toBe(false);
    expect(server.grants("c1")).toEqual(new Set());
  });

  it("keeps a chat's and a job's grants apart, even under the same id", () => {
    const log = openLog(makeTree("skillgate-chats-"));
    log.addGrant({ kind: "job", id: "x" }, GRANT);
    log.addGrant("x", "skill:other@ffffffff");
    expect(log.grants({ kind: "job", id: "x" })).toEqual(new Set([GRANT]));
    expect(log.grants("x")).toEqual(new Set(["skill:other@ffffffff"]));
    expect(log.revokeGrant("y", GRANT)).toBe(false);
  });

  it("two processes writing at once lose nothing: counts, messages and grants add up", async () => {
    const data = makeTree("skillgate-chats-");
    const count = 150;
    // Both open the fresh file at the same moment, so both race to create the schema too.
    const results = await runTogether(
      ["alpha", "omega"].map((tag) => ({ script: "chat-writer.ts", arguments: [data, tag, String(count)] })),
    );
    for (const result of results)
      expect(result).toMatchObject({ code: 0, stdout: "ready\ndone\n", stderr: "" });
    const log = openLog(data);
    expect(log.getChat("shared")?.counts.failed).toBe(2 * count);
    const transcript = log.readTranscript("shared", { maxChars: 1_000_000 });
    expect(transcript?.totalMessages).toBe(2 * count);
    for (const tag of ["alpha", "omega"])
      expect(
        transcript?.messages
          .filter((message) => message.text.startsWith(`${tag} `))
          .map((message) => message.text),
      ).toEqual(Array.from({ length: count }, (_, index) => `${tag} ${index}`));
    expect(log.grants("shared").size).toBe(2 * count);
  });
});

describe("ChatLog: hostile input", () => {
  const nul = "a\u0000b";
  const cases: [string, (log: ChatLog) => unknown, string][] = [
    ["an empty chat id", (log) => log.openChat(""), "chat"],
    ["a chat id with NUL", (log) => log.appendMessage(nul, { role: "user", text: "hi" }), "chat"],
    ["a chat id with a newline", (log) => log.recordOutcome("a\nb", "failed"), "scope"],
    ["a 201-character chat id", (log) => log.openChat("x".repeat(201)), "chat"],
    ["a chat id with a lone surrogate", (log) => log.openChat("a\ud800"), "chat"],
    ["a chat id that is a number", (log) => log.openChat(42 as never), "chat"],
    [
      "a scope of another kind",
      (log) => log.addGrant({ kind: "team", id: "x" } as never, GRANT),
      "scope.kind",
    ],
    ["a scope id with NUL", (log) => log.addGrant({ kind: "job", id: nul }, GRANT), "scope.id"],
    ["a grant with NUL", (log) => log.addGrant("c1", `skill:a@0123abcd${"\u0000"}`), "grant"],
    ["an empty grant", (log) => log.addGrant("c1", ""), "grant"],
    ["a 201-character grant", (log) => log.addGrant("c1", "g".repeat(201)), "grant"],
    ["an owner with NUL", (log) => log.openChat("c1", { owner: nul }), "owner"],
    ["a title that is not text", (log) => log.openChat("c1", { title: 7 as never }), "title"],
    [
      "a role the transcript does not keep",
      (log) => log.appendMessage("c1", { role: "system" as never, text: "x" }),
      "role",
    ],
    [
      "a text that is not text",
      (log) => log.appendMessage("c1", { role: "user", text: null as never }),
      "text",
    ],
    [
      "a time that is not a time",
      (log) => log.appendMessage("c1", { role: "user", text: "x", time: "soon" }),
      "time",
    ],
    [
      "a time out of a Date's range",
      (log) => log.appendMessage("c1", { role: "user", text: "x", time: 9e15 }),
      "time",
    ],
  ];

  it.each(cases)("%s is invalid_argument and writes nothing", (_, call, argument) => {
    const data = makeTree("skillgate-chats-");
    const log = openLog(data);
    expect(() => call(log)).toThrow(
      expect.objectContaining({ code: "invalid_argument", data: { argument } }),
    );
    expect(rowCounts(data)).toEqual({ chats: 0, messages: 0, grants: 0 });
  });

  it("a failed write in a transaction leaves neither half", () => {
    const data = makeTree("skillgate-chats-");
    const log = openLog(data);
    const blocker = new Database(join(data, CHAT_DATABASE_FILE));
    try {
      blocker.exec(
        "CREATE TRIGGER no_messages BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'blocked'); END",
      );
      expect(() => log.appendMessage("c1", { role: "user", text: "hi" })).toThrow("blocked");
      expect(rowCounts(data)).toEqual({ chats: 0, messages: 0, grants: 0 });
    } finally {
      blocker.close();
    }
  });

  it("SQL-looking ids, titles, owners and grants are only ever values", async () => {
    const data = makeTree("skillgate-chats-");
    const log = openLog(data);
    const id = "x'); DROP TABLE chats; --";
    const grant = "skill:a@0'; DELETE FROM grants; --";
    log.openChat(id, { title: "'; UPDATE chats SET declined = 99; --", owner: "o' OR '1'='1" });
    log.addGrant(id, grant);
    log.addGrant("other", GRANT);
    log.recordOutcome(id, "declined");
    expect(log.getChat(id)).toMatchObject({
      id,
      title: "'; UPDATE chats SET declined = 99; --",
      owner: "o' OR '1'='1",
      counts: { declined: 1, expired: 0, failed: 0, timedOut: 0 },
    });
    expect(log.grants(id)).toEqual(new Set([grant]));
    expect(log.grants("other")).toEqual(new Set([GRANT]));
    expect((await log.listChats({ owner: "o' OR '1'='1" })).map((chat) => chat.id).sort()).toEqual(
      ["other", id].sort(),
    );
    expect(rowCounts(data)).toEqual({ chats: 2, messages: 0, grants: 2 });
    expect(existsSync(join(data, CHAT_DATABASE_FILE))).toBe(true);
  });
});
