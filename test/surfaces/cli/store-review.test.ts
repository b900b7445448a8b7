import { describe, expect, it } from "vitest";
import { draftSkill } from "../../../src/store/drafts/index.js";
import { planEdit } from "../../../src/store/edits/index.js";
import { Store } from "../../../src/store/store.js";
import { cliSandbox } from "./harness.js";

const json = <T>(text: string): T => JSON.parse(text) as T;

async function storeOf(data: string): Promise<Store> {
  return Store.open({ dataFolder: data, lockStaleMs: 2_000 });
}

describe("skillgate store drafts, plans, diff, approve, reject", () => {
  it("lists a draft with its chats and rationale, and the owner enables it by hash", async () => {
    const sandbox = cliSandbox();
    const store = await storeOf(sandbox.data);
    await draftSkill(store, {
      name: "disk-report",
      description: "Report disk usage per folder.",
      body: "Run the script.",
      files: { "scripts/report.py": "print('usage')\n" },
      tier: "read",
      sourceChats: ["chat-7"],
      rationale: "Asked three times this week.",
    });
    const listed = await sandbox.run(["store", "drafts"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain("disk-report (waiting for review)");
    expect(listed.out).toContain("from chats: chat-7");
    expect(listed.out).toContain("rationale: Asked three times this week.");
    const drafts = json<{ drafts: { name: string; hash: string; enabled: boolean }[] }>(
      (await sandbox.run(["store", "drafts", "--json"])).out,
    ).drafts;
    expect(drafts).toHaveLength(1);
    expect(
      (await sandbox.run(["store", "enable", "disk-report", "--hash", drafts[0]?.hash as string])).code,
    ).toBe(0);
    expect((await sandbox.run(["store", "drafts"])).out).toContain("disk-report (enabled)");
  });

  it("shows a plan's diff and applies exactly it; a rejected plan is gone", async () => {
    const sandbox = cliSandbox();
    const store = await storeOf(sandbox.data);
    await store.create(
      "notes",
      { "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n" },
      { enabled: true },
    );
    const plan = await planEdit(store, {
      skillName: "notes",
      files: { "references/style.md": "Short lines.\n" },
      reason: "Add a style guide.",
    });
    const plans = json<{ plans: { id: string; skill: string; reason: string }[] }>(
      (await sandbox.run(["store", "plans", "--json"])).out,
    ).plans;
    expect(plans).toMatchObject([{ id: plan.id, skill: "notes", reason: "Add a style guide." }]);
    const diff = await sandbox.run(["store", "diff", plan.id]);
    expect(diff.code).toBe(0);
    expect(diff.out).toContain("+Short lines.");
    const approved = await sandbox.run(["store", "approve", plan.id]);
    expect(approved.code).toBe(0);
    expect(approved.out).toMatch(new RegExp(`^notes: plan ${plan.id} applied`));
    expect((await store.get("notes")).files.map((file) => file.path)).toContain("references/style.md");
    expect((await sandbox.run(["store", "approve", plan.id])).err).toMatch(/\[plan_not_found\]/);

    const second = await planEdit(store, {
      skillName: "notes",
      removeFiles: ["references/style.md"],
      reason: "Not needed.",
    });
    expect((await sandbox.run(["store", "reject", second.id])).out).toContain("rejected");
    expect((await sandbox.run(["store", "plans"])).out).toBe("No edit plans are waiting.\n");
    expect((await store.get("notes")).files.map((file) => file.path)).toContain("references/style.md");
  });

  it("a plan whose skill moved since is refused with skill_changed and writes nothing", async () => {
    const sandbox = cliSandbox();
    const store = await storeOf(sandbox.data);
    await store.create("notes", {
      "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n",
    });
    const plan = await planEdit(store, {
      skillName: "notes",
      files: { "references/a.md": "A\n" },
      reason: "Add A.",
    });
    await store.updateFile("notes", "references/b.md", "B\n");
    const before = await store.get("notes");
    const refused = await sandbox.run(["store", "approve", plan.id]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/\[skill_changed\]/);
    expect((await store.get("notes")).hash).toBe(before.hash);
  });
});
