import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import type { ApprovalRequest } from "../../../src/policy/approvals.js";
import { makeRequest as makeQueueRequest } from "../../policy/approval-queue-helpers.js";
import { cliSandbox, hasStackTrace } from "./harness.js";

/** A request as the broker makes them, created now (the CLI reads the real clock). */
function makeRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return makeQueueRequest(systemClock, overrides);
}

/** A sandbox whose queue holds `requests`. */
function sandboxWith(...requests: ApprovalRequest[]) {
  const sandbox = cliSandbox();
  const queue = ApprovalQueue.open({ dataFolder: sandbox.data });
  for (const request of requests) queue.record(request);
  return { sandbox, queue };
}

describe("skillgate approvals", () => {
  it("says so when nothing waits, and creates nothing", async () => {
    const { sandbox } = sandboxWith();
    const result = await sandbox.run(["approvals"]);
    expect(result).toEqual({ code: 0, out: "No approval requests are waiting.\n", err: "" });
    expect(JSON.parse((await sandbox.run(["approvals", "--json"])).out)).toEqual({ approvals: [] });
  });

  it("lists id, age, tool, skill@hash8, summary, options and time left; then a destructive warning and an edit's diff", async () => {
    const change = makeRequest();
    const destructive = makeRequest({
      tier: "destructive",
      summary: "run scripts/wipe.sh of cleanup",
      skill: "cleanup",
      hash: "12".repeat(32),
      grant: "skill:cleanup@12121212",
      warning: "This is a destructive action: run scripts/wipe.sh of cleanup. It may delete data.",
    });
    const edit = makeRequest({
      tool: "edit_skill",
      tier: "skill-edit",
      summary: "edit skill backup",
      options: ["once", "decline"],
      reference: "plan-1",
      detail: "--- a/SKILL.md\n+++ b/SKILL.md\n-old line\n+new line\n",
    });
    const { sandbox } = sandboxWith(change, destructive, edit);
    const result = await sandbox.run(["approvals"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    const lines = result.out.split("\n");
    expect(lines[0]).toMatch(/^ID +AGE +TOOL +SKILL +SUMMARY +OPTIONS +EXPIRES IN$/);
    const row = lines.find((line) => line.startsWith(change.id)) ?? "";
    expect(row.split(/ {2,}/)).toEqual([
      change.id,
      "0s",
      "run_skill_script",
      "backup@abababab",
      "run scripts/backup.py of backup",
      "once, always, decline",
      "9m",
    ]);
    expect(lines.find((line) => line.startsWith(edit.id))).toContain("once, decline");
    expect(result.out).toContain(`${destructive.id}:\n  This is a destructive action`);
    expect(result.out).toContain(
      `${edit.id}:\n  plan plan-1\n  --- a/SKILL.md\n  +++ b/SKILL.md\n  -old line\n  +new line\n`,
    );
    expect(result.out).toContain("answer with: skillgate approve ID [--always]  or  skillgate decline ID");
  });

  it("--json prints the waiting requests as they are stored", async () => {
    const request = makeRequest();
    const { sandbox } = sandboxWith(request);
    const result = await sandbox.run(["approvals", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ approvals: [request] });
  });
});

describe("skillgate approve and decline", () => {
  it("approve ID answers once and says what happens next", async () => {
    const request = makeRequest();
    const { sandbox, queue } = sandboxWith(request);
    const result = await sandbox.run(["approve", request.id]);
    expect(result).toEqual({
      code: 0,
      out: `approved ${request.id} once: run scripts/backup.py of backup. The model's next identical call in chat chat-1 runs.\n`,
      err: "",
    });
    expect(queue.pending()).toEqual([]);
    expect(queue.take({ ...request, id: randomUUID() })).toBe("once");
  });

  it("approve ID --always answers always-chat, and --json prints the answer", async () => {
    const request = makeRequest();
    const { sandbox, queue } = sandboxWith(request);
    const result = await sandbox.run(["approve", request.id, "--always", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({
      request,
      answer: "always-chat",
      answeredAt: expect.any(Number),
    });
    expect(queue.take({ ...request, id: randomUUID() })).toBe("always-chat");
  });

  it("approve --always in a job names the grant and the job", async () => {
    const request = makeRequest({
      scope: { kind: "job", id: "nightly" },
      options: ["once", "always-job", "decline"],
    });
    const { sandbox } = sandboxWith(request);
    const result = await sandbox.run(["approve", request.id, "--always"]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      `approved ${request.id} always: run scripts/backup.py of backup. The next identical call in job nightly runs and stores the grant skill:backup@abababab for job nightly; a change to the skill asks again.\n`,
    );
  });

  it("decline ID declines", async () => {
    const request = makeRequest();
    const { sandbox, queue } = sandboxWith(request);
    const result = await sandbox.run(["decline", request.id]);
    expect(result).toEqual({
      code: 0,
      out: `declined ${request.id}: run scripts/backup.py of backup. The model's next identical call in chat chat-1 is refused.\n`,
      err: "",
    });
    expect(queue.take({ ...request, id: randomUUID() })).toBe("decline");
  });

  it.each([
    {
      name: "an unknown id",
      argv: () => ["approve", randomUUID()],
      code: "approval_not_found",
    },
    { name: "a malformed id", argv: () => ["approve", "../../etc/passwd"], code: "invalid_argument" },
    {
      name: "--always where it is not offered",
      argv: (request: ApprovalRequest) => ["approve", request.id, "--always"],
      code: "approval_answer_not_offered",
      request: { tool: "edit_skill", tier: "skill-edit", options: ["once", "decline"] } as const,
    },
    {
      name: "an expired request",
      argv: (request: ApprovalRequest) => ["decline", request.id],
      code: "approval_expired",
      request: { createdAt: 1, expiresAt: 2 },
    },
  ])("$name exits 1 with one line naming $code", async ({ argv, code, request: overrides }) => {
    const request = makeRequest(overrides ?? {});
    const { sandbox } = sandboxWith(request);
    const result = await sandbox.run(argv(request));
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toMatch(new RegExp(`^skillgate: .+ \\[${code}\\]\\n$`));
    expect(hasStackTrace(result.err)).toBe(false);
  });

  it("an answered request cannot be answered again", async () => {
    const request = makeRequest();
    const { sandbox } = sandboxWith(request);
    expect((await sandbox.run(["approve", request.id])).code).toBe(0);
    const again = await sandbox.run(["decline", request.id]);
    expect(again.code).toBe(1);
    expect(again.err).toBe(
      `skillgate: approval request ${request.id} has already been answered [approval_already_answered]\n`,
    );
  });

  it("a missing id is a usage error (exit 2)", async () => {
    const { sandbox } = sandboxWith();
    const result = await sandbox.run(["approve"]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^skillgate: missing required argument 'id'/);
  });
});
