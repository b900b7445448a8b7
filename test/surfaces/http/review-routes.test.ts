import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { draftSkill } from "../../../src/store/drafts/index.js";
import { planEdit } from "../../../src/store/edits/index.js";
import { ownerApi } from "./owner-api.js";

/**
 * The review routes over real HTTP against a real store: the queue and its Needs review
 * count, a plan and its diff, approving and rejecting by the plan's hash (with the plan
 * statuses of the store), reviewed chats, and the events each write publishes.
 */

const NOTES = { "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n" };
const EDIT = {
  skillName: "notes",
  files: { "references/style.md": "Short lines.\n" },
  reason: "A style guide.",
};
const DRAFT = {
  name: "disk-report",
  description: "Reports disk use.",
  body: "# Disk report\n",
  sourceChats: ["chat-1"],
  rationale: "Asked twice.",
};

async function withPlan() {
  const api = await ownerApi();
  await api.store.create("notes", NOTES, { enabled: true });
  const plan = await planEdit(api.store, EDIT);
  return { ...api, plan };
}

function planFiles(api: { sandbox: { data: string } }): string[] {
  const folder = join(api.sandbox.data, "skills", ".plans");
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".json")) : [];
}

describe("GET /api/review", () => {
  it("lists waiting drafts and plans with the Needs review count; an enabled draft leaves the queue", async () => {
    const { request, store, plan } = await withPlan();
    const draft = await draftSkill(store, DRAFT);
    const first = await request("GET", "/api/review");
    expect(first.status).toBe(200);
    expect(first.body.needsReview).toBe(2);
    expect(first.body.drafts.map((each: { name: string }) => each.name)).toEqual(["disk-report"]);
    expect(first.body.drafts[0]).toMatchObject({
      author: "assistant",
      sourceChats: ["chat-1"],
      rationale: "Asked twice.",
    });
    expect(first.body.plans).toEqual([
      expect.objectContaining({
        id: plan.id,
        skill: "notes",
        resultHash: plan.resultHash,
        writes: ["references/style.md"],
      }),
    ]);
    await store.enable("disk-report", { hash: draft.hash });
    const after = await request("GET", "/api/review");
    expect(after.body.needsReview).toBe(1);
    expect(after.body.drafts).toEqual([]);
  });
});

describe("events from any door of the server's process", () => {
  it("a draft_skill call on the server's Skillgate (as over /mcp) publishes draft-created and review-changed", async () => {
    const api = await ownerApi();
    const turn = api.context.host.skillgate.createTurn({ chatId: "mcp-1" });
    const saved = await turn.call("draft_skill", DRAFT);
    expect(saved.status, saved.text).toBe("ok");
    expect(api.events).toContainEqual({ type: "draft-created", name: "disk-report" });
    await expect.poll(() => api.events).toContainEqual({ type: "review-changed", needsReview: 1 });
  });
});

describe("GET /api/plans/:id", () => {
  it("returns the whole plan with its diff; unknown and malformed ids are plan_not_found (404)", async () => {
    const { request, plan } = await withPlan();
    const shown = await request("GET", `/api/plans/${plan.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      id: plan.id,
      skill: "notes",
      baseHash: plan.baseHash,
      diff: plan.diff,
    });
    expect(shown.body.diff).toContain("+Short lines.");
    for (const id of ["0".repeat(32), "not-a-plan", "..%2F..%2Findex"]) {
      const missing = await request("GET", `/api/plans/${id}`);
      expect([missing.status, missing.body.error.code], id).toEqual([404, "plan_not_found"]);
    }
  });

  it("an expired plan is plan_expired (410), and approving it is too", async () => {
    const api = await ownerApi();
    await api.store.create("notes", NOTES, { enabled: true });
    const longAgo = Date.now() - 3 * 60 * 60 * 1000;
    const plan = await planEdit(api.store, EDIT, { clock: { now: () => longAgo } });
    const shown = await api.request("GET", `/api/plans/${plan.id}`);
    expect([shown.status, shown.body.error.code]).toEqual([410, "plan_expired"]);
    const approved = await api.request("POST", `/api/plans/${plan.id}/approve`, { hash: plan.resultHash });
    expect([approved.status, approved.body.error.code]).toEqual([410, "plan_expired"]);
    expect((await api.store.get("notes")).files.map((file) => file.path)).not.toContain(
      "references/style.md",
    );
  });
});

describe("POST /api/plans/:id/approve and /reject", () => {
  it("approve writes exactly the plan when the hash is the plan's; events say so", async () => {
    const api = await withPlan();
    const { request, store, plan, events } = api;
    const applied = await request("POST", `/api/plans/${plan.id}/approve`, { hash: plan.resultHash });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body).toMatchObject({
      plan: plan.id,
      skill: "notes",
      hash: plan.resultHash,
      settledApprovals: [],
    });
    expect((await store.get("notes")).hash).toBe(plan.resultHash);
    expect(planFiles(api)).toEqual([]);
    expect(events).toContainEqual({ type: "plan-applied", id: plan.id, name: "notes" });
    expect(events).toContainEqual({ type: "review-changed", needsReview: 0 });
    const again = await request("POST", `/api/plans/${plan.id}/approve`, { hash: plan.resultHash });
    expect([again.status, again.body.error.code]).toEqual([404, "plan_not_found"]);
  });

  it("a hash that is not the plan's is skill_changed (409) and nothing is written", async () => {
    const api = await withPlan();
    const before = (await api.store.get("notes")).hash;
    for (const action of ["approve", "reject"]) {
      const refused = await api.request("POST", `/api/plans/${api.plan.id}/${action}`, {
        hash: api.plan.baseHash,
      });
      expect([refused.status, refused.body.error.code], action).toEqual([409, "skill_changed"]);
      expect(refused.body.error.data).toMatchObject({ plan: api.plan.id, actual: api.plan.resultHash });
    }
    expect((await api.store.get("notes")).hash).toBe(before);
    expect(planFiles(api)).toHaveLength(1);
    expect(api.events).toEqual([]);
  });

  it("a skill that moved since the plan was made is skill_changed (409) and the plan is used up", async () => {
    const api = await withPlan();
    await api.store.updateFiles("notes", { write: { "references/other.md": "Other.\n" }, remove: [] });
    const moved = (await api.store.get("notes")).hash;
    const refused = await api.request("POST", `/api/plans/${api.plan.id}/approve`, {
      hash: api.plan.resultHash,
    });
    expect([refused.status, refused.body.error.code]).toEqual([409, "skill_changed"]);
    expect((await api.store.get("notes")).hash).toBe(moved);
    expect(planFiles(api)).toEqual([]);
  });

  it("reject removes the plan and leaves the skill as it was", async () => {
    const api = await withPlan();
    const before = (await api.store.get("notes")).hash;
    const rejected = await api.request("POST", `/api/plans/${api.plan.id}/reject`, {
      hash: api.plan.resultHash,
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({
      plan: api.plan.id,
      skill: "notes",
      rejected: true,
      settledApprovals: [],
    });
    expect((await api.store.get("notes")).hash).toBe(before);
    expect(planFiles(api)).toEqual([]);
    expect(api.events).toContainEqual({ type: "review-changed", needsReview: 0 });
  });

  it("refuses hostile input with the exact code and writes nothing", async () => {
    const api = await withPlan();
    const path = `/api/plans/${api.plan.id}/approve`;
    const send = (body: string, type = "application/json") =>
      fetch(`${api.base}${path}`, { method: "POST", body, headers: { "content-type": type } });
    const cases: Array<[string, string, number, string]> = [
      ["no hash", "{}", 400, "invalid_argument"],
      ["not JSON", "hash=abc", 400, "invalid_json"],
      ["a short hash", JSON.stringify({ hash: "abc" }), 400, "invalid_argument"],
      [
        "an upper-case hash",
        JSON.stringify({ hash: api.plan.resultHash.toUpperCase() }),
        400,
        "invalid_argument",
      ],
      ["a number", JSON.stringify({ hash: 7 }), 400, "invalid_argument"],
      [
        "an unknown field",
        JSON.stringify({ hash: api.plan.resultHash, always: true }),
        400,
        "invalid_argument",
      ],
      ["a list", JSON.stringify([api.plan.resultHash]), 400, "invalid_argument"],
      ["a polluting key", `{"hash":"${api.plan.resultHash}","__proto__":{"x":1}}`, 400, "invalid_argument"],
    ];
    for (const [what, body, status, code] of cases) {
      const response = await send(body);
      const answer = (await response.json()) as { error: { code: string } };
      expect([response.status, answer.error.code], what).toEqual([status, code]);
    }
    expect(planFiles(api)).toHaveLength(1);
    expect((await api.store.get("notes")).files.map((file) => file.path)).not.toContain(
      "references/style.md",
    );
    expect(api.events).toEqual([]);
  });
});

describe("reviewed chats", () => {
  it("GET and POST /api/review/chats read and mark skill-reviews.json", async () => {
    const { request } = await ownerApi();
    expect((await request("GET", "/api/review/chats")).body).toEqual({ owner: "owner", chats: [] });
    const marked = await request("POST", "/api/review/chats", { chats: ["chat-1", "chat-2"] });
    expect(marked).toEqual({ status: 200, body: { owner: "owner", marked: 2, dropped: 0 } });
    const listed = await request("GET", "/api/review/chats");
    expect(listed.body.chats.map((entry: { chat: string }) => entry.chat)).toEqual(["chat-1", "chat-2"]);
    const other = await request("GET", "/api/review/chats?owner=alice");
    expect(other.body.chats).toEqual([]);
  });

  it("refuses bad marks with invalid_argument and writes no file; a corrupt file is store_corrupt (500)", async () => {
    const api = await ownerApi();
    const file = join(api.sandbox.data, "skills", "skill-reviews.json");
    const cases: Array<[string, unknown]> = [
      ["no chats", {}],
      ["an empty list", { chats: [] }],
      ["a number", { chats: [1] }],
      ["an empty id", { chats: [""] }],
      ["a control character", { chats: ["a\u0007b"] }],
      ["an unknown field", { chats: ["c"], extra: 1 }],
      ["a long id", { chats: ["x".repeat(201)] }],
    ];
    for (const [what, body] of cases) {
      const refused = await api.request("POST", "/api/review/chats", body);
      expect([refused.status, refused.body.error.code], what).toEqual([400, "invalid_argument"]);
    }
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, "{not json");
    const corrupt = await api.request("GET", "/api/review/chats");
    expect([corrupt.status, corrupt.body.error.code]).toEqual([500, "store_corrupt"]);
  });
});
