import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../../src/app/skillgate.js";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import { FakeRunner } from "../../../src/testing/index.js";
import { cliSandbox } from "./harness.js";

/**
 * An `edit_skill` ask that waits in the approval queue names its edit plan. The owner may
 * answer the plan in the store (`store approve PLAN`, `store reject PLAN`) instead of the
 * request: the request is then settled, off `skillgate approvals`, and answering it refused.
 */

const EDIT = {
  skillName: "notes",
  files: { "references/style.md": "Short lines.\n" },
  reason: "Add a style guide.",
};

async function setup() {
  const sandbox = cliSandbox();
  const queue = ApprovalQueue.open({ dataFolder: sandbox.data });
  const skillgate = createSkillgate({
    config: sandbox.config,
    data: sandbox.data,
    home: sandbox.home,
    roots: [sandbox.project],
    builtins: false,
    runner: new FakeRunner(),
    approve: queue.deferredApprover(),
    audit: false,
  });
  const store = await skillgate.openStore();
  const created = await store.create(
    "notes",
    { "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n" },
    { enabled: true },
  );
  const turn = skillgate.createTurn({ chatId: "chat-1" });
  const edit = () => turn.call("edit_skill", EDIT);
  const approvals = async () =>
    (JSON.parse((await sandbox.run(["approvals", "--json"])).out) as { approvals: ApprovalLike[] }).approvals;
  const plans = async () =>
    (
      JSON.parse((await sandbox.run(["store", "plans", "--json"])).out) as {
        plans: { id: string; resultHash: string }[];
      }
    ).plans;
  return { sandbox, queue, skillgate, store, baseHash: created.hash, edit, approvals, plans };
}

interface ApprovalLike {
  readonly id: string;
  readonly tool: string;
  readonly skill?: string;
  readonly hash?: string;
  readonly reference?: string;
}

function requestIdOf(text: string): string {
  const match = /skillgate approve ([0-9a-f-]{36})/.exec(text);
  if (match?.[1] === undefined) throw new Error(`no request id in: ${text}`);
  return match[1];
}

describe("an edit plan answered in the store settles the approval request that asked about it", () => {
  it("store approve PLAN: the ask is no longer listed, and approving it is refused with approval_settled", async () => {
    const { sandbox, skillgate, store, baseHash, edit, approvals, plans } = await setup();
    const waiting = await edit();
    expect(waiting.status).toBe("awaiting_approval");
    const id = requestIdOf(waiting.text);
    // A retry before the answer waits on the same request and leaves no second plan behind.
    expect(requestIdOf((await edit()).text)).toBe(id);
    const [plan, ...others] = await plans();
    expect(others).toEqual([]);
    const [listed] = await approvals();
    expect(listed).toMatchObject({
      id,
      tool: "edit_skill",
      skill: "notes",
      hash: baseHash,
      reference: plan?.id,
    });
    expect((await sandbox.run(["approvals"])).out).toContain(`notes@${baseHash.slice(0, 8)}`);

    const applied = await sandbox.run(["store", "approve", plan?.id as string]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain(`approval request ${id} (chat chat-1) is settled with it`);
    expect((await store.get("notes")).files.map((file) => file.path)).toContain("references/style.md");

    expect(await approvals()).toEqual([]);
    expect((await sandbox.run(["approvals"])).out).toBe("No approval requests are waiting.\n");
    const refused = await sandbox.run(["approve", id]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`its edit plan ${plan?.id} was already applied`);
    expect(refused.err).toContain("[approval_settled]");
    // The model's retry is read anew against the edited skill: it changes nothing now.
    const again = await edit();
    expect(again.status, again.text).toBe("refused");
    expect(again.text).toContain("changes nothing");
    skillgate.close();
  });

  it("store reject PLAN settles it too: declining it afterwards is refused, --json names the settled ids", async () => {
    const { sandbox, skillgate, store, edit, approvals, plans } = await setup();
    const id = requestIdOf((await edit()).text);
    const [plan] = await plans();
    const rejected = await sandbox.run(["store", "reject", plan?.id as string, "--json"]);
    expect(rejected.code, rejected.err).toBe(0);
    expect(JSON.parse(rejected.out)).toEqual({ plan: plan?.id, rejected: true, settledApprovals: [id] });
    expect(await approvals()).toEqual([]);
    const refused = await sandbox.run(["decline", id]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("[approval_settled]");
    expect((await store.get("notes")).files.map((file) => file.path)).not.toContain("references/style.md");
    skillgate.close();
  });

  it("an owner who answered the request first: the plan applied in the store still keeps the answer from being used", async () => {
    const { sandbox, queue, skillgate, store, edit, plans } = await setup();
    const id = requestIdOf((await edit()).text);
    const [listed] = queue.pending();
    if (listed === undefined) throw new Error("the edit did not wait in the queue");
    expect((await sandbox.run(["approve", id])).code).toBe(0);
    const [plan] = await plans();
    expect((await sandbox.run(["store", "approve", plan?.id as string])).code).toBe(0);
    const hash = (await store.get("notes")).hash;
    expect(queue.pending()).toEqual([]);
    expect(queue.take({ ...listed, id: "00000000-0000-4000-8000-000000000000" })).toBeUndefined();
    // The retry does not apply the edit a second time on the strength of the old answer.
    const again = await edit();
    expect(again.status, again.text).toBe("refused");
    expect((await store.get("notes")).hash).toBe(hash);
    skillgate.close();
  });

  it("`skillgate approve ID` on an edit's request: the model's identical retry applies the edit once", async () => {
    const { sandbox, skillgate, store, baseHash, edit, plans } = await setup();
    const id = requestIdOf((await edit()).text);
    const [shown] = await plans();
    expect((await sandbox.run(["approve", id])).code).toBe(0);
    const applied = await edit();
    expect(applied.status, applied.text).toBe("ok");
    expect(applied.text).toMatch(/^Applied the approved edit to notes/);
    const after = await store.get("notes");
    expect(after.hash).not.toBe(baseHash);
    expect(after.files.map((file) => file.path)).toContain("references/style.md");
    // The plan written is the one the owner was shown; no second plan is left waiting.
    expect(after.hash).toBe(shown?.resultHash);
    expect(await plans()).toEqual([]);
    skillgate.close();
  });
});
