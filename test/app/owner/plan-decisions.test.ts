import { describe, expect, it } from "vitest";
import { Authoring } from "../../../src/app/authoring.js";
import { type ApprovalChange, watchApprovals } from "../../../src/app/owner/approval-watch.js";
import {
  answerApproval,
  approvePlan,
  checkPlanHash,
  rejectPlan,
} from "../../../src/app/owner/plan-decisions.js";
import { reviewQueue } from "../../../src/app/owner/review-queue.js";
import { createSkillgate } from "../../../src/app/skillgate.js";
import { silentLogger } from "../../../src/observe/logger.js";
import type { OwnerNotice } from "../../../src/observe/notifications.js";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import { draftSkill } from "../../../src/store/drafts/index.js";
import { listPlans } from "../../../src/store/edits/index.js";
import { FakeRunner } from "../../../src/testing/index.js";
import { cliSandbox } from "../../surfaces/cli/harness.js";

/**
 * The owner's decisions and views on their own, as the CLI and the HTTP API share them: an
 * edit that two chats asked about, declined in one; plans applied and rejected with their
 * requests settled and the edit reported; the review queue; the queue watch.
 */

const EDIT = { skillName: "notes", files: { "references/style.md": "Short.\n" }, reason: "A style guide." };

async function setup() {
  const sandbox = cliSandbox();
  const approvals = ApprovalQueue.open({ dataFolder: sandbox.data });
  const skillgate = createSkillgate({
    config: sandbox.config,
    data: sandbox.data,
    home: sandbox.home,
    roots: [sandbox.project],
    builtins: false,
    runner: new FakeRunner(),
    approve: approvals.deferredApprover(),
    audit: false,
  });
  const store = await skillgate.openStore();
  await store.create(
    "notes",
    { "SKILL.md": "---\nname: notes\ndescription: Notes.\n---\n\nNotes.\n" },
    { enabled: true },
  );
  const reported: OwnerNotice[] = [];
  const authoring = new Authoring({
    config: () => ({ timeoutSeconds: 1, channels: [] }),
    logger: silentLogger,
  });
  authoring.subscribe((notice) => reported.push(notice));
  const decisions = { store: () => Promise.resolve(store), approvals, authoring };
  const chat = (id: string) => {
    const turn = skillgate.createTurn({ chatId: id });
    return () => turn.call("edit_skill", EDIT);
  };
  return { sandbox, skillgate, store, approvals, decisions, reported, chat };
}

function idOf(text: string): string {
  const match = /skillgate approve ([0-9a-f-]{36})/.exec(text);
  if (match?.[1] === undefined) throw new Error(`no request id in: ${text}`);
  return match[1];
}

describe("answerApproval", () => {
  it("declining one chat's edit removes the shared plan; that chat is told no, the other chat is asked again", async () => {
    const { store, approvals, decisions, chat, skillgate } = await setup();
    const first = chat("chat-1");
    const second = chat("chat-2");
    const one = idOf((await first()).text);
    const two = idOf((await second()).text);
    const [plan, ...more] = await listPlans(store);
    expect(more).toEqual([]);
    const declined = await answerApproval(decisions, one, "decline");
    expect(declined).toMatchObject({ answer: "decline", rejectedPlan: plan?.id });
    expect(declined.settled.map((request) => request.id)).toEqual([two]);
    expect(await listPlans(store)).toEqual([]);
    expect(approvals.pending()).toEqual([]);
    expect((await first()).status).toBe("declined");
    const again = await second();
    expect(again.status).toBe("awaiting_approval");
    expect(idOf(again.text)).not.toBe(two);
    skillgate.close();
  });

  it("an answer that is not a decline leaves the plan alone", async () => {
    const { store, decisions, chat, skillgate } = await setup();
    const id = idOf((await chat("chat-1")()).text);
    const approved = await answerApproval(decisions, id, "once");
    expect(approved.rejectedPlan).toBeUndefined();
    expect(await listPlans(store)).toHaveLength(1);
    skillgate.close();
  });
});

describe("approvePlan and rejectPlan", () => {
  it("apply the plan, settle its request and report the edit; reject settles as rejected", async () => {
    const { store, decisions, reported, chat, skillgate } = await setup();
    const id = idOf((await chat("chat-1")()).text);
    const [plan] = await listPlans(store);
    if (plan === undefined) throw new Error("no plan");
    await expect(checkPlanHash(decisions, plan.id, plan.baseHash)).rejects.toMatchObject({
      code: "skill_changed",
    });
    const applied = await approvePlan(decisions, plan.id);
    await applied.reported;
    expect(applied.settled.map((request) => request.id)).toEqual([id]);
    expect(reported).toEqual([
      { kind: "edit-applied", skill: "notes", hash: plan.resultHash, plan: plan.id },
    ]);
    await expect(rejectPlan(decisions, plan.id)).rejects.toMatchObject({ code: "plan_not_found" });
    skillgate.close();
  });
});

describe("reviewQueue", () => {
  it("counts waiting drafts and plans; an owner-edited draft is no longer waiting", async () => {
    const { store, skillgate } = await setup();
    const draft = { description: "D.", body: "# D\n", sourceChats: ["chat-1"], rationale: "Why." };
    await draftSkill(store, { ...draft, name: "one" });
    await draftSkill(store, { ...draft, name: "two" });
    expect((await reviewQueue(store)).needsReview).toBe(2);
    await store.updateFiles("two", { write: { "references/a.md": "A\n" }, remove: [] });
    const queue = await reviewQueue(store);
    expect(queue.drafts.map((each) => each.name)).toEqual(["one"]);
    expect(queue.needsReview).toBe(1);
    skillgate.close();
  });
});

describe("watchApprovals", () => {
  it("tells of requests queued and answered, by anyone on the folder", async () => {
    const { approvals, decisions, chat, skillgate } = await setup();
    const changes: ApprovalChange[] = [];
    const stop = watchApprovals(approvals, (change) => changes.push(change), { settleMs: 5 });
    const id = idOf((await chat("chat-1")()).text);
    await expect
      .poll(() => changes.flatMap((change) => change.added.map((request) => request.id)))
      .toEqual([id]);
    await answerApproval(decisions, id, "once");
    await expect.poll(() => changes.flatMap((change) => change.removed)).toEqual([id]);
    stop();
    skillgate.close();
  });
});
