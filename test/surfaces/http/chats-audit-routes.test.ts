import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serialiseAuditEvent } from "../../../src/observe/audit-line.js";
import { rotatedName } from "../../../src/observe/audit-read.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { ownerApi } from "./owner-api.js";

/** The chats and audit routes over real HTTP: issue counts, transcripts, and the audit trail paged. */

describe("GET /api/chats", () => {
  it("lists chats with their declined, expired, failed and timed-out counts and totals", async () => {
    const api = await ownerApi();
    const log = api.context.host.skillgate.chatLog();
    log.openChat({ kind: "chat", id: "chat-1" }, { title: "Backups" });
    log.openChat({ kind: "chat", id: "chat-2" }, { title: "Quiet" });
    for (const status of ["declined", "declined", "expired", "failed", "timed_out", "ok"] as const)
      log.recordOutcome({ kind: "chat", id: "chat-1" }, status);
    const listed = await api.request("GET", "/api/chats");
    expect(listed.status).toBe(200);
    const chat1 = listed.body.chats.find((chat: { id: string }) => chat.id === "chat-1");
    expect(chat1).toMatchObject({
      title: "Backups",
      counts: { declined: 2, expired: 1, failed: 1, timedOut: 1 },
      issues: 5,
    });
    expect(listed.body.totals).toEqual({ declined: 2, expired: 1, failed: 1, timedOut: 1 });
    expect(listed.body.withIssues).toBe(1);
    const withIssues = await api.request("GET", "/api/chats?withIssuesOnly=true");
    expect(withIssues.body.chats.map((chat: { id: string }) => chat.id)).toEqual(["chat-1"]);

    // A chat marked reviewed leaves the list unless asked for.
    await api.request("POST", "/api/review/chats", { chats: ["chat-1"] });
    log.openChat({ kind: "chat", id: "chat-1" }, { owner: "owner" });
    const after = await api.request("GET", "/api/chats");
    expect(after.body.chats.map((chat: { id: string }) => chat.id)).toEqual(["chat-2"]);
    const all = await api.request("GET", "/api/chats?includeReviewed=true");
    expect(all.body.chats.find((chat: { id: string }) => chat.id === "chat-1").reviewed).toBe(true);
  });

  it("refuses bad queries with invalid_argument (400)", async () => {
    const api = await ownerApi();
    for (const query of [
      "limit=0",
      "limit=1001",
      "limit=ten",
      "kind=thread",
      "withIssuesOnly=yes",
      "owner=",
    ]) {
      const refused = await api.request("GET", `/api/chats?${query}`);
      expect([refused.status, refused.body.error.code], query).toEqual([400, "invalid_argument"]);
    }
  });
});

describe("GET /api/chats/:id/transcript", () => {
  it("returns the messages within the budget; an unknown chat is not_found (404)", async () => {
    const api = await ownerApi();
    const log = api.context.host.skillgate.chatLog();
    log.openChat({ kind: "chat", id: "chat-1" });
    log.appendMessage({ kind: "chat", id: "chat-1" }, { role: "user", text: "Check the backups." });
    log.appendMessage({ kind: "chat", id: "chat-1" }, { role: "assistant", text: "All fine." });
    const shown = await api.request("GET", "/api/chats/chat-1/transcript");
    expect(shown.status).toBe(200);
    expect(shown.body.messages.map((message: { text: string }) => message.text)).toEqual([
      "Check the backups.",
      "All fine.",
    ]);
    const clipped = await api.request("GET", "/api/chats/chat-1/transcript?maxChars=5");
    expect(clipped.body).toMatchObject({ clipped: true, shownChars: 5 });
    const missing = await api.request("GET", "/api/chats/nobody/transcript");
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
    const job = await api.request("GET", "/api/chats/chat-1/transcript?kind=job");
    expect(missing.status).toBe(404);
    expect(job.status).toBe(404);
    for (const query of ["maxChars=0", "maxChars=1000001", "kind=x"]) {
      const refused = await api.request("GET", `/api/chats/chat-1/transcript?${query}`);
      expect([refused.status, refused.body.error.code], query).toEqual([400, "invalid_argument"]);
    }
    const badId = await api.request("GET", "/api/chats/a%07b/transcript");
    expect([badId.status, badId.body.error.code]).toEqual([400, "invalid_argument"]);
  });
});

function event(time: string, skill: string, chat: string, index: number): AuditEvent {
  return {
    type: "tool-call-finished",
    time,
    requestId: `r-${index}`,
    scope: { kind: "chat", id: chat },
    tool: "run_skill_script",
    tier: "change",
    skill,
    status: "ok",
  };
}

/** Writes `events` into a rotated file and the current file of `<data>/audit`, oldest first. */
function writeAudit(data: string, events: readonly AuditEvent[], rotatedCount: number): void {
  const folder = join(data, "audit");
  mkdirSync(folder, { recursive: true });
  const lines = (list: readonly AuditEvent[]) =>
    list.map((each) => `${serialiseAuditEvent(each)}\n`).join("");
  writeFileSync(
    join(folder, rotatedName(Date.parse("2026-01-01T00:00:00.000Z"))),
    lines(events.slice(0, rotatedCount)),
  );
  writeFileSync(join(folder, "audit.jsonl"), `${lines(events.slice(rotatedCount))}{torn`);
}

describe("GET /api/audit", () => {
  it("pages newest first across rotated files, with events of one time split over pages, none lost or repeated", async () => {
    const api = await ownerApi();
    // Three events share one time, so a page boundary falls among them.
    const times = ["01", "02", "03", "03", "03", "04", "05"].map(
      (second) => `2026-01-02T00:00:${second}.000Z`,
    );
    const events = times.map((time, index) =>
      event(time, index % 2 === 0 ? "backup" : "notes", "chat-1", index),
    );
    writeAudit(api.sandbox.data, events, 3);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await api.request(
        "GET",
        `/api/audit?limit=2${cursor !== undefined ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.events.map((each: AuditEvent) => each.requestId));
      cursor = page.body.next;
      pages += 1;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual(["r-6", "r-5", "r-4", "r-3", "r-2", "r-1", "r-0"]);
  });

  it("filters by skill, chat and since", async () => {
    const api = await ownerApi();
    writeAudit(
      api.sandbox.data,
      [
        event("2026-01-02T00:00:01.000Z", "backup", "chat-1", 0),
        event("2026-01-02T00:00:02.000Z", "notes", "chat-2", 1),
        event("2026-01-02T00:00:03.000Z", "backup", "chat-2", 2),
      ],
      1,
    );
    const ids = async (query: string) =>
      (await api.request("GET", `/api/audit?${query}`)).body.events.map((each: AuditEvent) => each.requestId);
    expect(await ids("skill=backup")).toEqual(["r-2", "r-0"]);
    expect(await ids("chat=chat-2")).toEqual(["r-2", "r-1"]);
    expect(await ids("since=2026-01-02T00:00:02.000Z")).toEqual(["r-2", "r-1"]);
    expect(await ids("skill=backup&chat=chat-2")).toEqual(["r-2"]);
  });

  it("refuses bad queries with invalid_argument (400)", async () => {
    const api = await ownerApi();
    for (const query of [
      "limit=0",
      "limit=501",
      "since=yesterday",
      "cursor=zz",
      "cursor=1.0",
      `cursor=${"a".repeat(65)}`,
    ]) {
      const refused = await api.request("GET", `/api/audit?${query}`);
      expect([refused.status, refused.body.error.code], query).toEqual([400, "invalid_argument"]);
    }
  });
});
