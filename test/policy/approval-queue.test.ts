import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { APPROVALS_FOLDER, ApprovalQueue } from "../../src/policy/approval-queue.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";
import { codeOf, filesIn, makeRequest, retry, START, setup, TEN_MINUTES } from "./approval-queue-helpers.js";

describe("the approval queue", () => {
  it("creates nothing until a request is recorded, then a private folder with private files", () => {
    const { queue, data, folder, clock } = setup();
    expect(queue.pending()).toEqual([]);
    expect(existsSync(data)).toBe(false);
    const request = makeRequest(clock);
    queue.record(request);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(filesIn(folder)).toEqual([`${request.id}.json`]);
    expect(statSync(join(folder, `${request.id}.json`)).mode & 0o777).toBe(0o600);
    expect(queue.pending()).toEqual([request]);
  });

  it("lists waiting requests oldest first; recording an id twice keeps one", () => {
    const { queue, clock } = setup();
    const first = makeRequest(clock);
    clock.advance(1000);
    const second = makeRequest(clock);
    queue.record(second);
    queue.record(first);
    queue.record(first);
    expect(queue.pending().map((request) => request.id)).toEqual([first.id, second.id]);
  });

  it("answers once: the next identical call takes it, exactly once, and the files are gone", () => {
    const { queue, clock, folder } = setup();
    const request = makeRequest(clock);
    queue.record(request);
    const result = queue.answer(request.id, "once");
    expect(result).toEqual({ request, answer: "once", answeredAt: START });
    expect(queue.pending()).toEqual([]);
    expect(queue.take(retry(request))).toBe("once");
    expect(queue.take(retry(request))).toBeUndefined();
    expect(filesIn(folder)).toEqual([]);
  });

  it("an answer applies only to the same call: scope, tool, tier, skill, hash and input digest", () => {
    const { queue, clock } = setup();
    const request = makeRequest(clock);
    queue.record(request);
    queue.answer(request.id, "once");
    const others: Partial<ApprovalRequest>[] = [
      { inputDigest: "ef".repeat(32) },
      { scope: { kind: "chat", id: "chat-2" } },
      { scope: { kind: "job", id: "chat-1" } },
      { tool: "edit_skill" },
      { tier: "destructive" },
      { skill: "restore" },
      { hash: "ff".repeat(32) },
    ];
    for (const other of others) expect(queue.take({ ...retry(request), ...other })).toBeUndefined();
    const { inputDigest: _digest, ...withoutDigest } = retry(request);
    expect(queue.take(withoutDigest)).toBeUndefined();
    expect(queue.take(retry(request))).toBe("once");
  });

  it('"always" becomes always-chat in a chat and always-job in a job', () => {
    const { queue, clock } = setup();
    const chat = makeRequest(clock);
    const job = makeRequest(clock, {
      scope: { kind: "job", id: "nightly" },
      options: ["once", "always-job", "decline"],
    });
    queue.record(chat);
    queue.record(job);
    expect(queue.answer(chat.id, "always").answer).toBe("always-chat");
    expect(queue.answer(job.id, "always").answer).toBe("always-job");
    expect(queue.take(retry(job))).toBe("always-job");
    expect(queue.take(retry(chat))).toBe("always-chat");
  });

  it("a decline is taken like any answer: the next identical call is refused once", () => {
    const { queue, clock } = setup();
    const request = makeRequest(clock);
    queue.record(request);
    expect(queue.answer(request.id, "decline").answer).toBe("decline");
    expect(queue.take(retry(request))).toBe("decline");
    expect(queue.take(retry(request))).toBeUndefined();
  });

  it("refuses answers that were not offered, and unknown, answered and malformed ids, changing nothing", () => {
    const { queue, clock, folder } = setup();
    const edit = makeRequest(clock, { tool: "edit_skill", tier: "skill-edit", options: ["once", "decline"] });
    queue.record(edit);
    expect(codeOf(() => queue.answer(edit.id, "always"))).toBe("approval_answer_not_offered");
    expect(queue.pending()).toEqual([edit]);
    expect(codeOf(() => queue.answer(randomUUID(), "once"))).toBe("approval_not_found");
    queue.answer(edit.id, "once");
    expect(codeOf(() => queue.answer(edit.id, "decline"))).toBe("approval_already_answered");
    expect(queue.take(retry(edit))).toBe("once");
    // Used up: the request is gone.
    expect(codeOf(() => queue.answer(edit.id, "once"))).toBe("approval_not_found");
    const before = filesIn(folder);
    for (const id of [
      "",
      "../../etc/passwd",
      `${randomUUID()}/../x`,
      randomUUID().toUpperCase(),
      `${randomUUID()}.answer`,
      ` ${randomUUID()}`,
    ])
      expect(codeOf(() => queue.answer(id, "once"))).toBe("invalid_argument");
    expect(filesIn(folder)).toEqual(before);
  });

  it("refuses to record something that is not a request", () => {
    const { queue, clock, data } = setup();
    const bad = { ...makeRequest(clock), id: "../outside" };
    expect(codeOf(() => queue.record(bad))).toBe("invalid_argument");
    expect(codeOf(() => queue.record({ ...makeRequest(clock), options: [] }))).toBe("invalid_argument");
    expect(existsSync(data)).toBe(false);
  });

  it("stores only the documented fields of a request handed over in-process", () => {
    const { queue, clock } = setup();
    const request = makeRequest(clock);
    queue.record({ ...request, addedLater: "x" } as ApprovalRequest);
    expect(queue.pending()).toEqual([request]);
  });

  it("expires each request at its own expiresAt: dropped from the listing and from disk", () => {
    const { queue, clock, folder } = setup();
    const short = makeRequest(clock, { expiresAt: START + 1000 });
    clock.advance(10);
    const long = makeRequest(clock);
    queue.record(short);
    queue.record(long);
    clock.advance(989);
    expect(queue.pending().map((request) => request.id)).toEqual([short.id, long.id]);
    clock.advance(1);
    expect(queue.pending()).toEqual([long]);
    expect(filesIn(folder)).toEqual([`${long.id}.json`]);
  });

  it("an expired request cannot be answered, and an answer is not used after expiry", () => {
    const { queue, clock, folder } = setup();
    const late = makeRequest(clock);
    const unused = makeRequest(clock, { inputDigest: "12".repeat(32) });
    queue.record(late);
    queue.record(unused);
    queue.answer(unused.id, "once");
    clock.advance(TEN_MINUTES);
    expect(codeOf(() => queue.answer(late.id, "once"))).toBe("approval_expired");
    expect(queue.take(retry(unused))).toBeUndefined();
    expect(filesIn(folder)).toEqual([]);
  });

  it("another queue instance on the same folder sees the request, and the answer is taken once", () => {
    const { queue, clock, data } = setup();
    const other = ApprovalQueue.open({ dataFolder: data, clock });
    const request = makeRequest(clock);
    queue.record(request);
    expect(other.pending()).toEqual([request]);
    other.answer(request.id, "always");
    expect(queue.pending()).toEqual([]);
    expect(queue.take(retry(request))).toBe("always-chat");
    expect(other.take(retry(request))).toBeUndefined();
    expect(queue.take(retry(request))).toBeUndefined();
  });

  it("four processes racing to take forty answers: each answer is taken by exactly one", async () => {
    const { tree, data } = setup();
    const clock = new ManualClock(Date.now());
    const queue = ApprovalQueue.open({ dataFolder: data, clock });
    const requests = Array.from({ length: 40 }, (_, index) =>
      makeRequest(clock, { inputDigest: String(index).repeat(64) }),
    );
    for (const request of requests) {
      queue.record(request);
      queue.answer(request.id, "once");
    }
    const requestsFile = join(tree, "requests.json");
    writeFileSync(requestsFile, JSON.stringify(requests.map(retry)));
    const results = await raceChildren(4, [data, requestsFile]);
    for (const result of results) expect(result.stderr).toBe("");
    const answers = results.map((result) => JSON.parse(result.stdout.replace(/^ready\n/, "")) as unknown[]);
    for (let index = 0; index < requests.length; index += 1)
      expect(answers.map((each) => each[index]).filter((answer) => answer === "once")).toHaveLength(1);
    expect(filesIn(join(data, APPROVALS_FOLDER))).toEqual([]);
  });
});

describe("the deferred approver", () => {
  it("defers a new call, reuses the waiting request on a retry, then gives the owner's answer once", async () => {
    const { queue, clock } = setup();
    const approve = queue.deferredApprover();
    const first = makeRequest(clock);
    expect(await approve(first)).toBe("deferred");
    expect(await approve(retry(first))).toEqual({ deferred: first.id });
    expect(queue.pending()).toEqual([first]);
    queue.answer(first.id, "once");
    expect(await approve(retry(first))).toBe("once");
    const again = retry(first);
    expect(await approve(again)).toBe("deferred");
    expect(queue.pending()).toEqual([again]);
  });

  it("a call with other input waits as its own request", async () => {
    const { queue, clock } = setup();
    const approve = queue.deferredApprover();
    const first = makeRequest(clock);
    const other = makeRequest(clock, { inputDigest: "99".repeat(32) });
    expect(await approve(first)).toBe("deferred");
    expect(await approve(other)).toBe("deferred");
    expect(queue.pending()).toHaveLength(2);
  });
});

const taker = fileURLToPath(new URL("./approval-queue-taker.ts", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Starts `count` taker processes, releases them together once all are ready, and collects their output. */
async function raceChildren(
  count: number,
  argumentsList: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }[]> {
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", taker, ...argumentsList], {
      cwd: repositoryRoot,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let markReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.startsWith("ready\n")) markReady();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const result = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        markReady();
        resolve({ code, stdout, stderr });
      });
    });
    return { child, ready, result };
  });
  await Promise.all(children.map((each) => each.ready));
  for (const each of children) each.child.stdin.end("go\n");
  return Promise.all(children.map((each) => each.result));
}
