import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import {
  ApprovalBook,
  approvalArgumentsText,
  approvalOptions,
  MAX_APPROVAL_ARGUMENTS_CHARS,
} from "../../src/policy/approvals.js";

const init = {
  tool: "run_skill_script",
  tier: "change" as const,
  scope: { kind: "chat" as const, id: "c1" },
  summary: "run scripts/backup.py of backup-check",
  skill: "backup-check",
  hash: "abcdef1234",
  grant: "skill:backup-check@abcdef12",
};

describe("approval requests", () => {
  it("offers once, always for this chat, and decline", () => {
    expect(new ApprovalBook().open(init).options).toEqual(["once", "always-chat", "decline"]);
    expect(approvalOptions("run_skill_script", "g", "job")).toEqual(["once", "always-job", "decline"]);
  });

  it("never offers always for edit_skill or a call without a grant", () => {
    expect(approvalOptions("edit_skill", "g", "chat")).toEqual(["once", "decline"]);
    expect(approvalOptions("run_skill_script", undefined, "chat")).toEqual(["once", "decline"]);
    expect(
      new ApprovalBook().answer(new ApprovalBook().open({ ...init, tool: "edit_skill" }).id, "always-chat"),
    ).toBe("expired");
    const book = new ApprovalBook();
    const request = book.open({ ...init, tool: "edit_skill" });
    expect(book.answer(request.id, "always-chat")).toBe("invalid");
    expect(book.answer(request.id, "once")).toBe("once");
  });

  it("warns for destructive calls only", () => {
    const book = new ApprovalBook();
    expect(book.open(init).warning).toBeUndefined();
    expect(book.open({ ...init, tier: "destructive" }).warning).toMatch(/destructive/);
  });

  it("expires: an answer after the deadline is expired, never approved", () => {
    const clock = new ManualClock(1_000);
    const book = new ApprovalBook({ clock, ttlMs: 5_000 });
    const request = book.open(init);
    expect(book.pending().map((item) => item.id)).toEqual([request.id]);
    clock.advance(5_000);
    expect(book.answer(request.id, "once")).toBe("expired");
    expect(book.pending()).toEqual([]);
  });

  it("an answer is taken once", () => {
    const book = new ApprovalBook();
    const request = book.open(init);
    expect(book.answer(request.id, "always-chat")).toBe("always-chat");
    expect(book.answer(request.id, "once")).toBe("expired");
  });
});

describe("the arguments an approval request shows the owner", () => {
  it("is canonical JSON (sorted keys), whole when it fits", () => {
    expect(approvalArgumentsText({ b: 1, a: { d: [1, "x"], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,"x"]},"b":1}',
    );
    expect(approvalArgumentsText(undefined)).toBe("null");
  });

  it("is cut to its limit and ends in an ellipsis when longer", () => {
    const text = approvalArgumentsText({ text: "x".repeat(MAX_APPROVAL_ARGUMENTS_CHARS * 2) });
    expect(text.length).toBe(MAX_APPROVAL_ARGUMENTS_CHARS);
    expect(text.endsWith("…")).toBe(true);
    expect(text.startsWith('{"text":"xxx')).toBe(true);
  });
});
