import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import { listPlans } from "../../../src/store/edits/index.js";
import { ownerApi, requestIdOf } from "./owner-api.js";

/**
 * The asks routes over real HTTP: the same approval queue the CLI answers, answered exactly
 * once across processes; a declined edit takes its plan with it; every refusal of the queue
 * with its status, and hostile input refused with nothing written.
 */

const NOTES = { "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n" };

async function withAsk(reason = "A style guide.") {
  const api = await ownerApi();
  await api.store.create("notes", NOTES, { enabled: true });
  const agent = api.agent();
  const turn = agent.createTurn({ chatId: "chat-1" });
  const edit = (why = reason) =>
    turn.call("edit_skill", {
      skillName: "notes",
      files: { "references/style.md": "Short.\n" },
      reason: why,
    });
  const waiting = await edit();
  expect(waiting.status, waiting.text).toBe("awaiting_approval");
  return { ...api, edit, id: requestIdOf(waiting.text) };
}

function queueFiles(data: string): string[] {
  const folder = join(data, "approvals");
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

/** Runs the built CLI as a child process; resolves with its exit code and output. */
function cliProcess(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join("dist", "surfaces", "cli", "main.js"), ...argv], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe("GET /api/approvals and answering", () => {
  it("lists the waiting edit with its plan; approve once lets the model's retry apply it", async () => {
    const { request, edit, id, store, events } = await withAsk();
    const listed = await request("GET", "/api/approvals");
    expect(listed.status).toBe(200);
    const [plan] = await listPlans(store);
    expect(listed.body.approvals).toEqual([
      expect.objectContaining({
        id,
        tool: "edit_skill",
        skill: "notes",
        reference: plan?.id,
        options: ["once", "decline"],
        rule: expect.stringMatching(/\S/),
      }),
    ]);
    // The owner sees the call's arguments (as canonical JSON text) and the rule that asked.
    expect(JSON.parse(listed.body.approvals[0].arguments)).toEqual({
      skillName: "notes",
      files: { "references/style.md": "Short.\n" },
      reason: "A style guide.",
    });
    const approved = await request("POST", `/api/approvals/${id}/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ answer: "once", request: { id }, settledApprovals: [] });
    expect(events).toContainEqual({ type: "approval-settled", id, answer: "once" });
    expect((await request("GET", "/api/approvals")).body.approvals).toEqual([]);
    const retry = await edit();
    expect(retry.status, retry.text).toBe("ok");
    expect((await store.get("notes")).files.map((file) => file.path)).toContain("references/style.md");
  });

  it('edit_skill is never offered "always": approve {"always": true} is approval_answer_not_offered (400)', async () => {
    const { request, id, sandbox } = await withAsk();
    const before = queueFiles(sandbox.data);
    const refused = await request("POST", `/api/approvals/${id}/approve`, { always: true });
    expect([refused.status, refused.body.error.code]).toEqual([400, "approval_answer_not_offered"]);
    expect(queueFiles(sandbox.data)).toEqual(before);
  });

  it("decline refuses the model's retry and removes the plan it named", async () => {
    const { request, edit, id, store, sandbox } = await withAsk();
    const [plan] = await listPlans(store);
    const declined = await request("POST", `/api/approvals/${id}/decline`);
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    expect(declined.body).toMatchObject({ answer: "decline", rejectedPlan: plan?.id });
    expect(await listPlans(store)).toEqual([]);
    const retry = await edit();
    expect(retry.status, retry.text).toBe("declined");
    expect(await listPlans(store)).toEqual([]);
    expect(queueFiles(sandbox.data)).toEqual([]);
    expect((await store.get("notes")).files.map((file) => file.path)).not.toContain("references/style.md");
  });

  it("asks queued and answered elsewhere become approval-requested and approval-settled events", async () => {
    const { id, sandbox, events } = await withAsk();
    await expect.poll(() => events, { timeout: 5000 }).toContainEqual({ type: "approval-requested", id });
    expect((await sandbox.run(["approve", id])).code).toBe(0);
    await expect
      .poll(() => events, { timeout: 5000 })
      .toContainEqual({ type: "approval-settled", id, answer: "gone" });
  });

  it("the CLI's decline removes the plan too (one core for both)", async () => {
    const { edit, id, store, sandbox } = await withAsk();
    const declined = await sandbox.run(["decline", id]);
    expect(declined.code, declined.err).toBe(0);
    expect(declined.out).toContain("is removed with it");
    expect(await listPlans(store)).toEqual([]);
    expect((await edit()).status).toBe("declined");
  });

  it("answers the queue's refusals with their statuses", async () => {
    const { request, edit, id, store, sandbox } = await withAsk();
    expect((await request("POST", `/api/approvals/${id}/decline`)).status).toBe(200);
    const twice = await request("POST", `/api/approvals/${id}/approve`);
    expect([twice.status, twice.body.error.code]).toEqual([409, "approval_already_answered"]);
    const unknown = await request("POST", `/api/approvals/${randomUUID()}/approve`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "approval_not_found"]);

    // A request whose plan was rejected in review is settled.
    const agent = requestIdOf((await edit("Another reason.")).text);
    const [plan] = await listPlans(store);
    const rejected = await request("POST", `/api/plans/${plan?.id}/reject`, { hash: plan?.resultHash });
    expect(rejected.body.settledApprovals).toEqual([agent]);
    const settled = await request("POST", `/api/approvals/${agent}/approve`);
    expect([settled.status, settled.body.error.code]).toEqual([409, "approval_settled"]);

    // A request past its own expiry.
    const queue = ApprovalQueue.open({ dataFolder: sandbox.data });
    const now = Date.now();
    const expiring = {
      id: randomUUID(),
      tool: "run_skill_script",
      tier: "change" as const,
      scope: { kind: "chat" as const, id: "chat-9" },
      summary: "run scripts/x.py of notes",
      options: ["once" as const, "decline" as const],
      createdAt: now,
      // Long enough that the server's queue watch looks (and sweeps) before it expires.
      expiresAt: now + 1000,
    };
    queue.record(expiring);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const expired = await request("POST", `/api/approvals/${expiring.id}/approve`);
    expect([expired.status, expired.body.error.code]).toEqual([410, "approval_expired"]);
  });

  it("refuses hostile input with the exact code and writes nothing", async () => {
    const { base, id, sandbox } = await withAsk();
    const before = queueFiles(sandbox.data);
    const send = (path: string, body?: string, type?: string) =>
      fetch(`${base}${path}`, {
        method: "POST",
        // Bytes carry no content type of their own: "" sends a body without one.
        ...(body !== undefined ? { body: type === "" ? new TextEncoder().encode(body) : body } : {}),
        ...(type !== undefined && type !== "" ? { headers: { "content-type": type } } : {}),
      });
    const cases: Array<[string, string, string | undefined, string | undefined, number, string]> = [
      [
        "an id that is not a UUID",
        "/api/approvals/not-an-id/approve",
        undefined,
        undefined,
        400,
        "invalid_argument",
      ],
      [
        "an upper-case UUID",
        `/api/approvals/${id.toUpperCase()}/approve`,
        undefined,
        undefined,
        400,
        "invalid_argument",
      ],
      [
        "a traversal",
        "/api/approvals/..%2F..%2Fskills/approve",
        undefined,
        undefined,
        400,
        "invalid_argument",
      ],
      [
        "always as text",
        `/api/approvals/${id}/approve`,
        '{"always":"yes"}',
        "application/json",
        400,
        "invalid_argument",
      ],
      [
        "an unknown field",
        `/api/approvals/${id}/approve`,
        '{"answer":"always"}',
        "application/json",
        400,
        "invalid_argument",
      ],
      [
        "JSON sent as text",
        `/api/approvals/${id}/approve`,
        '{"always":true}',
        "text/plain",
        415,
        "unsupported_media_type",
      ],
      [
        "a body without a type",
        `/api/approvals/${id}/approve`,
        '{"always":true}',
        "",
        415,
        "unsupported_media_type",
      ],
      ["not JSON", `/api/approvals/${id}/approve`, "always", "application/json", 400, "invalid_json"],
      ["an empty JSON body", `/api/approvals/${id}/decline`, "", "application/json", 400, "invalid_json"],
      [
        "a body on decline",
        `/api/approvals/${id}/decline`,
        '{"always":false}',
        "application/json",
        400,
        "invalid_argument",
      ],
    ];
    for (const [what, path, body, type, status, code] of cases) {
      const response = await send(path, body, type);
      const answer = (await response.json()) as { error?: { code: string } };
      expect([response.status, answer.error?.code], what).toEqual([status, code]);
    }
    expect(queueFiles(sandbox.data)).toEqual(before);
  });
});

describe("exactly once across processes", () => {
  it("the CLI (a child process) and the API answering the same ask at once: one wins, the other is approval_already_answered", async () => {
    const api = await withAsk("First.");
    const ids = [api.id];
    for (const reason of ["Second.", "Third."]) ids.push(requestIdOf((await api.edit(reason)).text));
    for (const id of ids) {
      const [cli, http] = await Promise.all([
        cliProcess([...api.sandbox.flags(), "approve", id, "--json"]),
        api.request("POST", `/api/approvals/${id}/approve`, {}),
      ]);
      const winners = [cli.code === 0, http.status === 200].filter(Boolean);
      expect(winners, `${cli.err} ${JSON.stringify(http.body)}`).toHaveLength(1);
      if (cli.code === 0) expect(http.body.error.code).toBe("approval_already_answered");
      else expect(cli.err).toContain("[approval_already_answered]");
    }
    expect((await api.request("GET", "/api/approvals")).body.approvals).toEqual([]);
  });
});
