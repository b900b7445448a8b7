import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditPage, MAX_AUDIT_PAGE_LIMIT } from "../../../src/app/owner/audit-page.js";
import { serialiseAuditEvent } from "../../../src/observe/audit-line.js";
import { rotatedName } from "../../../src/observe/audit-read.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { makeTree } from "../../helpers/skill-tree.js";

/** The audit trail a page at a time: newest first, cursors that survive rotation, bounded reads. */

function event(second: number, index: number, skill = "backup"): AuditEvent {
  return {
    type: "tool-call-finished",
    time: new Date(Date.UTC(2026, 0, 2, 0, 0, second)).toISOString(),
    requestId: `r-${index}`,
    scope: { kind: "chat", id: "chat-1" },
    tool: "run_skill_script",
    tier: "change",
    skill,
    status: "ok",
  };
}

function write(folder: string, name: string, events: readonly AuditEvent[]): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, name), events.map((each) => `${serialiseAuditEvent(each)}\n`).join(""));
}

function allPages(data: string, limit: number): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = auditPage(data, { limit, ...(cursor !== undefined ? { cursor } : {}) });
    pages.push(page.events.map((each) => each.requestId));
    cursor = page.next;
  } while (cursor !== undefined && pages.length < 50);
  return pages;
}

describe("auditPage", () => {
  it("gives no events and no cursor for a data folder without an audit log", () => {
    expect(auditPage(makeTree())).toEqual({ events: [] });
  });

  it("walks every event once, newest first, when many share one time", () => {
    const data = makeTree();
    const events = [event(1, 0), ...[1, 2, 3, 4, 5].map((index) => event(2, index)), event(3, 6)];
    write(join(data, "audit"), "audit.jsonl", events);
    for (const limit of [1, 2, 3, 7, 8]) {
      const pages = allPages(data, limit);
      expect(pages.flat(), `limit ${limit}`).toEqual(["r-6", "r-5", "r-4", "r-3", "r-2", "r-1", "r-0"]);
      expect(pages.every((page) => page.length <= limit)).toBe(true);
    }
  });

  it("keeps its place when the current file is rotated between pages", () => {
    const data = makeTree();
    const folder = join(data, "audit");
    const events = [0, 1, 2, 3, 4, 5].map((second) => event(second, second));
    write(folder, "audit.jsonl", events);
    const first = auditPage(data, { limit: 2 });
    expect(first.events.map((each) => each.requestId)).toEqual(["r-5", "r-4"]);
    // The current file is renamed away and a new one started, as the audit log rotates.
    writeFileSync(join(folder, "audit.jsonl"), "");
    write(folder, rotatedName(Date.UTC(2026, 0, 3)), events);
    write(folder, "audit.jsonl", [event(9, 9)]);
    const second = auditPage(data, { limit: 2, cursor: first.next as string });
    expect(second.events.map((each) => each.requestId)).toEqual(["r-3", "r-2"]);
  });

  it("stops reading older files once the page is full", () => {
    const data = makeTree();
    const folder = join(data, "audit");
    write(folder, "audit.jsonl", [event(10, 10), event(11, 11), event(12, 12)]);
    // An older rotated file that cannot be read: a page that does not reach it never tries.
    mkdirSync(join(folder, rotatedName(Date.UTC(2026, 0, 1))));
    expect(auditPage(data, { limit: 2 }).events.map((each) => each.requestId)).toEqual(["r-12", "r-11"]);
    expect(() => auditPage(data, { limit: 5 })).toThrow(/cannot read the audit log/);
  });

  it("filters by skill and since before paging", () => {
    const data = makeTree();
    write(join(data, "audit"), "audit.jsonl", [
      event(1, 0, "notes"),
      event(2, 1),
      event(3, 2, "notes"),
      event(4, 3),
    ]);
    expect(auditPage(data, { skill: "notes" }).events.map((each) => each.requestId)).toEqual(["r-2", "r-0"]);
    expect(
      auditPage(data, { since: "2026-01-02T00:00:03.000Z" }).events.map((each) => each.requestId),
    ).toEqual(["r-3", "r-2"]);
  });

  it.each([
    ["a limit of 0", { limit: 0 }],
    ["a limit above the most", { limit: MAX_AUDIT_PAGE_LIMIT + 1 }],
    ["a fractional limit", { limit: 1.5 }],
    ["a since that is not a time", { since: "soon" }],
    ["a cursor without a dot", { cursor: "abc" }],
    ["a cursor that skips none", { cursor: "kx.0" }],
    ["a cursor with other characters", { cursor: "../x.1" }],
    ["a long cursor", { cursor: `${"1".repeat(300)}.1` }],
  ])("refuses %s with invalid_argument", (_what, query) => {
    expect(() => auditPage(makeTree(), query)).toThrow(expect.objectContaining({ code: "invalid_argument" }));
  });
});
