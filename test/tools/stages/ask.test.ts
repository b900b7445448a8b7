import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../../src/policy/approvals.js";
import type { PolicyDecision } from "../../../src/policy/decide.js";
import { grant } from "../../../src/skill/content-hash.js";
import { askStage, withDeadline } from "../../../src/tools/stages/ask.js";
import type { CallState } from "../../../src/tools/stages/call-state.js";
import type { Approver } from "../../../src/tools/stages/call-types.js";
import { CHAT, fixedHooks, HASH, RUN_SUBJECT, stageContext, stageTool, stateFor } from "./stage-harness.js";

const ASK: PolicyDecision = {
  effect: "ask",
  rule: "changes-ask",
  priority: 40,
  description: "a change asks",
};

function askingState(extra: Partial<CallState> = {}): CallState {
  return stateFor(
    stageTool().tool,
    { n: 1 },
    {
      input: { n: 1 },
      subject: RUN_SUBJECT,
      grant: grant("s", HASH),
      decision: ASK,
      narrowed: ASK,
      ...extra,
    },
  );
}

function answering(answer: Awaited<ReturnType<Approver>>): { approve: Approver; asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve: async (request) => {
      asked.push(request);
      return answer;
    },
  };
}

describe("ask stage", () => {
  it("an allowed call passes without asking", async () => {
    const { approve, asked } = answering("once");
    const allow: PolicyDecision = { ...ASK, effect: "allow" };
    const state = askingState({ decision: allow, narrowed: allow });
    expect(await askStage(state, stageContext({ approve }).context)).toEqual({ state });
    expect(asked).toEqual([]);
  });

  it("asks with the subject, the grant and the input's digest; once runs, always stores the grant", async () => {
    const once = answering("once");
    const onceContext = stageContext({ approve: once.approve });
    const ran = await askStage(askingState(), onceContext.context);
    expect(ran.end).toBeUndefined();
    expect(once.asked[0]).toMatchObject({
      tool: "run_skill_script",
      skill: "s",
      hash: HASH,
      grant: grant("s", HASH),
      summary: RUN_SUBJECT.summary,
      options: ["once", "always-chat", "decline"],
    });
    expect(once.asked[0]?.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(onceContext.grants.grants(CHAT).size).toBe(0);
    expect(onceContext.events.map((event) => [event.type, event.answer])).toEqual([
      ["approval-requested", undefined],
      ["approval-answered", "once"],
    ]);

    const always = stageContext({ approve: answering("always-chat").approve });
    expect((await askStage(askingState(), always.context)).end).toBeUndefined();
    expect([...always.grants.grants(CHAT)]).toEqual([grant("s", HASH)]);
  });

  it("a decline, no approver, an approver that throws and an answer not offered all decline", async () => {
    const throwing: Approver = async () => {
      throw new Error("the form broke");
    };
    const notOffered = askingState({ tool: { ...stageTool().tool, name: "edit_skill" } });
    for (const [state, approve] of [
      [askingState(), answering("decline").approve],
      [askingState(), undefined],
      [askingState(), throwing],
      [notOffered, answering("always-chat").approve],
    ] as const) {
      const result = await askStage(state, stageContext(approve ? { approve } : {}).context);
      expect(result.end).toEqual({
        text: "HOST: the person declined this call; it did not run. Do not retry it unless they ask.",
        status: "declined",
        decision: ASK,
      });
    }
  });

  it("an expired answer ends the call expired; the approval hooks hear the ask and the answer", async () => {
    const { hooks, told } = fixedHooks();
    const result = await askStage(
      askingState(),
      stageContext({ approve: answering("expired").approve, hooks }).context,
    );
    expect(result.end?.status).toBe("expired");
    expect(result.end?.text).toBe(
      "HOST: the approval request expired before anyone answered; the call did not run.",
    );
    expect(told).toEqual(["approval:asked", "approval:expired"]);
  });

  it("a deferred call waits on the request, or on the one the approver names, and says where to retry from", async () => {
    const opened = answering("deferred");
    const own = await askStage(askingState(), stageContext({ approve: opened.approve }).context);
    const id = opened.asked[0]?.id ?? "";
    expect(own.end).toMatchObject({ status: "awaiting_approval", approvalId: id, decision: ASK });
    expect(own.end?.text).toContain(`\`skillgate approve ${id}\``);
    expect(own.end?.text).toMatch(/make exactly the same call again\.$/);

    const waiting = "0b7e1c2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d";
    const named = await askStage(
      askingState(),
      stageContext({ approve: answering({ deferred: waiting, retryFrom: "same-mcp-session" }).approve })
        .context,
    );
    expect(named.end?.approvalId).toBe(waiting);
    expect(named.end?.text).toContain(`skillgate approve ${waiting}`);
    expect(named.end?.text).toContain("from this same MCP session");
  });

  it("what is approved is made just before asking; a failure there refuses the call unasked", async () => {
    const { approve, asked } = answering("once");
    const planned = askingState({
      subject: {
        ...RUN_SUBJECT,
        prepareApproval: async () => ({ detail: "--- a\n+++ b", reference: "plan-1" }),
      },
    });
    await askStage(planned, stageContext({ approve }).context);
    expect(asked[0]).toMatchObject({ detail: "--- a\n+++ b", reference: "plan-1" });

    const failing = askingState({
      subject: {
        ...RUN_SUBJECT,
        prepareApproval: async () => {
          throw new Error("HOST: the plan could not be made.");
        },
      },
    });
    const refused = await askStage(failing, stageContext({ approve }).context);
    expect(refused.end).toEqual({
      text: "HOST: the plan could not be made.",
      status: "refused",
      decision: ASK,
      errorKind: "Error",
    });
    expect(asked).toHaveLength(1);
  });

  it("what nobody will approve is discarded: a decline, an expiry, or a wait on an earlier request", async () => {
    const waiting = "0b7e1c2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d";
    const cases: Array<[Awaited<ReturnType<Approver>>, boolean]> = [
      ["decline", true],
      ["expired", true],
      [{ deferred: waiting }, true],
      ["deferred", false],
      ["once", false],
    ];
    for (const [answer, discarded] of cases) {
      const thrown: string[] = [];
      const state = askingState({
        subject: {
          ...RUN_SUBJECT,
          prepareApproval: async () => ({
            detail: "diff",
            reference: "plan-1",
            discard: async () => {
              thrown.push("plan-1");
            },
          }),
        },
      });
      await askStage(state, stageContext({ approve: answering(answer).approve }).context);
      expect(thrown, JSON.stringify(answer)).toEqual(discarded ? ["plan-1"] : []);
    }
  });

  it("a subject without a hash asks with the approval's hash; the digest does not depend on what prepareApproval made", async () => {
    const { approve, asked } = answering("deferred");
    const { hash: _none, ...unhashed } = RUN_SUBJECT;
    // Each prepare makes a fresh holder beside the input, as edit_skill does.
    const editing = (holder: { plan?: string } = {}): CallState =>
      askingState({
        input: { args: { skillName: "s" }, holder },
        subject: {
          ...unhashed,
          prepareApproval: async () => {
            holder.plan = `plan-${asked.length}`;
            return { detail: "diff", reference: holder.plan, hash: HASH };
          },
        },
      });
    await askStage(editing(), stageContext({ approve }).context);
    await askStage(editing(), stageContext({ approve }).context);
    expect(asked.map((request) => request.hash)).toEqual([HASH, HASH]);
    expect(asked[0]?.inputDigest).toBe(asked[1]?.inputDigest);
    expect(asked.map((request) => request.reference)).toEqual(["plan-0", "plan-1"]);
  });

  it("withDeadline answers expired when the approver outlives the request", async () => {
    expect(await withDeadline(new Promise<never>(() => {}), 0)).toBe("expired");
    expect(await withDeadline(Promise.resolve("once"), 60_000)).toBe("once");
  });
});
