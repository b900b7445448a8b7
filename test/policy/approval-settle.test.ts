import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeOf, filesIn, makeRequest, retry, setup, TEN_MINUTES } from "./approval-queue-helpers.js";

const PLAN = "0123456789abcdef0123456789abcdef";

/** An edit_skill request that asked about plan `reference`, as the broker makes them. */
function editRequest(clock: Parameters<typeof makeRequest>[0], reference = PLAN) {
  const { grant: _noGrant, ...request } = makeRequest(clock, {
    tool: "edit_skill",
    tier: "skill-edit",
    summary: "edit backup: also check the second disk",
    options: ["once", "decline"],
    detail: "--- a/SKILL.md\n+++ b/SKILL.md\n",
    reference,
  });
  return request;
}

describe("settling a request when its edit plan was applied or rejected elsewhere", () => {
  it("a settled request is no longer listed, answering it is refused with approval_settled, and its files go with it", () => {
    const { queue, clock, folder } = setup();
    const asked = editRequest(clock);
    const other = editRequest(clock, "fedcba9876543210fedcba9876543210");
    queue.record(asked);
    queue.record(other);
    expect(queue.settle(PLAN, "applied").map((request) => request.id)).toEqual([asked.id]);
    expect(queue.pending().map((request) => request.id)).toEqual([other.id]);
    expect(codeOf(() => queue.answer(asked.id, "once"))).toBe("approval_settled");
    expect(codeOf(() => queue.answer(asked.id, "decline"))).toBe("approval_settled");
    expect(filesIn(folder)).not.toContain(`${asked.id}.answer.json`);
    // Settling again finds nothing new; the other plan's request is untouched.
    expect(queue.settle(PLAN, "applied")).toEqual([]);
    expect(queue.answer(other.id, "once").answer).toBe("once");
    clock.advance(TEN_MINUTES);
    queue.pending();
    expect(filesIn(folder).filter((name) => name.startsWith(asked.id))).toEqual([]);
  });

  it("an answer given before the plan was settled is never used by the model's retry", () => {
    const { queue, clock } = setup();
    const asked = editRequest(clock);
    queue.record(asked);
    queue.answer(asked.id, "once");
    expect(queue.settle(PLAN, "rejected").map((request) => request.id)).toEqual([asked.id]);
    expect(queue.take(retry(asked))).toBeUndefined();
  });

  it("the deferred approver does not wait on a settled request: the retry asks anew", async () => {
    const { queue, clock } = setup();
    const approver = queue.deferredApprover();
    const asked = editRequest(clock);
    expect(await approver(asked)).toBe("deferred");
    queue.settle(PLAN, "applied");
    const again = retry(asked);
    expect(await approver(again)).toBe("deferred");
    expect(queue.pending().map((request) => request.id)).toEqual([again.id]);
  });

  it("the refusal names the plan and how it was settled; settling without a queue folder does nothing", () => {
    const { queue, clock } = setup();
    expect(queue.settle(PLAN, "applied")).toEqual([]);
    const asked = editRequest(clock);
    queue.record(asked);
    queue.settle(PLAN, "rejected");
    expect(() => queue.answer(asked.id, "once")).toThrow(
      `approval request ${asked.id} is settled: its edit plan ${PLAN} was already rejected`,
    );
  });

  it("a malformed settlement file still keeps the request from being listed or answered", () => {
    const { queue, clock, folder } = setup();
    const asked = editRequest(clock);
    queue.record(asked);
    writeFileSync(join(folder, `${asked.id}.settled.json`), "{not json");
    expect(queue.pending()).toEqual([]);
    expect(codeOf(() => queue.answer(asked.id, "once"))).toBe("approval_already_answered");
  });
});
