import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSkillgateError } from "../../src/core/errors.js";
import { queueLayout, requestFileName } from "../../src/queue/local/layout.js";
import { untakenAnswers } from "../../src/queue/local/local-queue-status.js";
import { RequestSeal } from "../../src/queue/local/request-seal.js";
import { sweepDeadWorkers } from "../../src/queue/local/worker-folders.js";
import { eventually } from "../helpers/eventually.js";
import { localClient, localWorker, queuedSkill, queueRequest, queueTree } from "./helpers.js";

const ECHO = "const a = JSON.parse(process.env.SKILLGATE_SKILL_ARGS); console.log(JSON.stringify(a));\n";
const SLEEP = "await new Promise((r) => setTimeout(r, 60_000));\n";

describe("the local queue", () => {
  it("runs a request once and answers with the worker's name and host; the answer is taken once", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    const client = localClient(data);
    await localWorker(data, { name: "alpha" });
    const request = queueRequest("echo", hash, "scripts/echo.mjs", { arguments: { n: 7 } });
    await client.submit(request);
    const answer = await client.waitFor(request.requestId);
    expect(answer.status).toBe("ok");
    expect(JSON.parse(answer.stdout)).toEqual({ n: 7 });
    expect(answer.worker?.name).toBe("alpha");
    expect(answer.worker?.host.length).toBeGreaterThan(0);
    const layout = queueLayout(data);
    // The answer keeps its name (a tombstone no later answer can replace), marked taken.
    expect(untakenAnswers(layout)).toEqual([]);
    expect(readdirSync(layout.responses).filter((name) => !name.startsWith("."))).toEqual([
      `${request.requestId}.json`,
    ]);
    expect(readdirSync(layout.finished)).toEqual([`ok~${request.requestId}.json`]);
    const status = await client.status();
    expect(status.counts).toEqual({ waiting: 0, active: 0, done: 1, interrupted: 0, failed: 0 });
    expect(status.workers.map((worker) => worker.name)).toEqual(["alpha"]);
  });

  it("refuses a run when the worker's copy does not match the hash (skill_changed)", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    // The snapshot is changed after the controller made it.
    const copy = join(data, "runs", "snapshots", hash, "scripts", "echo.mjs");
    chmodSync(join(data, "runs", "snapshots", hash, "scripts"), 0o755);
    chmodSync(copy, 0o644);
    writeFileSync(copy, "console.log('swapped');\n");
    const client = localClient(data);
    await localWorker(data);
    const request = queueRequest("echo", hash, "scripts/echo.mjs");
    await client.submit(request);
    const answer = await client.waitFor(request.requestId);
    expect(answer.status).toBe("refused");
    expect(answer.code).toBe("skill_changed");
    expect(answer.message).toMatch(/^HOST: /);
    expect(answer.stdout).toBe("");
  });

  it("refuses hand-edited request files and runs none of them", async () => {
    const { data, skills, root } = queueTree();
    const marker = join(root, "ran");
    const { hash } = queuedSkill(data, skills, "echo", {
      "scripts/echo.mjs": ECHO,
      "scripts/other.mjs": `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "x");\n`,
    });
    const queuedOther = queuedSkill(data, skills, "other", { "scripts/other.mjs": ECHO });
    const client = localClient(data);
    const layout = queueLayout(data);
    const seal = RequestSeal.open(layout.sealKey);
    const cases: Array<{ label: string; write: () => string }> = [];
    // A sealed request, then its script changed in the file.
    cases.push({
      label: "another script",
      write: () => {
        const request = queueRequest("echo", hash, "scripts/echo.mjs");
        const changed = { ...request, script: "scripts/other.mjs" };
        writeFileSync(
          join(layout.requests, requestFileName("echo", request.requestId)),
          JSON.stringify({ request: changed, seal: seal.seal(request) }),
        );
        return request.requestId;
      },
    });
    cases.push({
      label: "another skill in the body",
      write: () => {
        const request = queueRequest("echo", hash, "scripts/echo.mjs");
        const changed = { ...request, skill: "other", hash: queuedOther.hash };
        writeFileSync(
          join(layout.requests, requestFileName("echo", request.requestId)),
          JSON.stringify({ request: changed, seal: seal.seal(changed) }),
        );
        return request.requestId;
      },
    });
    cases.push({
      label: "other arguments",
      write: () => {
        const request = queueRequest("echo", hash, "scripts/echo.mjs", { arguments: { a: 1 } });
        const changed = { ...request, arguments: { a: 2 } };
        writeFileSync(
          join(layout.requests, requestFileName("echo", request.requestId)),
          JSON.stringify({ request: changed, seal: seal.seal(request) }),
        );
        return request.requestId;
      },
    });
    cases.push({
      label: "no seal",
      write: () => {
        const request = queueRequest("echo", hash, "scripts/other.mjs");
        writeFileSync(
          join(layout.requests, requestFileName("echo", request.requestId)),
          JSON.stringify({ request }),
        );
        return request.requestId;
      },
    });
    cases.push({
      label: "not JSON",
      write: () => {
        const request = queueRequest("echo", hash, "scripts/echo.mjs");
        writeFileSync(join(layout.requests, requestFileName("echo", request.requestId)), "{not json");
        return request.requestId;
      },
    });
    // The client makes the folders and the key.
    await client.status();
    await client.submit(queueRequest("echo", hash, "scripts/echo.mjs")).catch(() => undefined);
    const ids = cases.map((entry) => entry.write());
    await localWorker(data);
    for (const [index, id] of ids.entries()) {
      const answer = await client.waitFor(id);
      expect(answer.status, cases[index]?.label).toBe("refused");
      expect(answer.code, cases[index]?.label).toBe("request_tampered");
      expect(answer.message).toMatch(/^HOST: /);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a submit past the capacity with queue_full and writes nothing", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    const client = localClient(data, 2);
    await client.submit(queueRequest("echo", hash, "scripts/echo.mjs"));
    await client.submit(queueRequest("echo", hash, "scripts/echo.mjs"));
    const third = queueRequest("echo", hash, "scripts/echo.mjs");
    const error = await client.submit(third).catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "queue_full")).toBe(true);
    expect((error as Error).message).toBe(
      "HOST: the worker pool's queue is full (2 waiting); try again later.",
    );
    expect(readdirSync(queueLayout(data).requests).filter((name) => name.includes(third.requestId))).toEqual(
      [],
    );
  });

  it.each([
    ["an id with a slash", { requestId: "../x" }, "queue_unavailable"],
    ["a skill name with a tilde", { skill: "a~b" }, "queue_unavailable"],
    ["arguments over 256 KiB", { arguments: { big: "x".repeat(300 * 1024) } }, "limit_exceeded"],
  ] as const)("refuses a request with %s and writes nothing", async (_label, overrides, code) => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    const client = localClient(data);
    const error = await client
      .submit(queueRequest("echo", hash, "scripts/echo.mjs", overrides))
      .catch((caught: unknown) => caught);
    expect(isSkillgateError(error, code)).toBe(true);
    expect((error as Error).message).toMatch(/^HOST: /);
    const requests = queueLayout(data).requests;
    expect(existsSync(requests) ? readdirSync(requests) : []).toEqual([]);
  });

  it("refuses with queue_unavailable when the data folder cannot hold the queue, without hanging", async () => {
    const { root } = queueTree();
    const notAFolder = join(root, "file");
    writeFileSync(notAFolder, "x");
    const client = localClient(notAFolder);
    const error = await client
      .submit(queueRequest("echo", "0".repeat(64), "scripts/echo.mjs"))
      .catch((caught: unknown) => caught);
    expect(isSkillgateError(error, "queue_unavailable")).toBe(true);
    expect((error as Error).message).toMatch(/^HOST: /);
  });

  it("cancels a running request: the worker stops the run and answers cancelled", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "sleepy", { "scripts/sleep.mjs": SLEEP });
    const client = localClient(data);
    await localWorker(data);
    const request = queueRequest("sleepy", hash, "scripts/sleep.mjs");
    await client.submit(request);
    await eventually("the run to start", async () => expect((await client.status()).counts.active).toBe(1));
    const controller = new AbortController();
    const waiting = client.waitFor(request.requestId, controller.signal);
    controller.abort();
    const answer = await waiting;
    expect(answer.status).toBe("cancelled");
    expect(answer.worker?.name).toBe("test-worker");
    expect((await client.status()).counts.active).toBe(0);
  });

  it("withdraws a request no worker took yet: cancelled, and no worker ever gets it", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    const client = localClient(data);
    const request = queueRequest("echo", hash, "scripts/echo.mjs");
    await client.submit(request);
    const controller = new AbortController();
    controller.abort();
    const answer = await client.waitFor(request.requestId, controller.signal);
    expect(answer.status).toBe("cancelled");
    expect(answer.worker).toBeUndefined();
    expect((await client.status()).counts.waiting).toBe(0);
  });

  it("stops a run at its timeout: timed_out", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "sleepy", { "scripts/sleep.mjs": SLEEP });
    const client = localClient(data);
    await localWorker(data);
    const request = queueRequest("sleepy", hash, "scripts/sleep.mjs", { timeoutMs: 300 });
    await client.submit(request);
    const answer = await client.waitFor(request.requestId);
    expect(answer.status).toBe("timed_out");
  });

  it("caps a run's output at the request's maxOutputBytes and says it was cut", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "loud", {
      "scripts/loud.mjs":
        'process.stdout.write("x".repeat(200 * 1024)); process.stderr.write("y".repeat(200 * 1024));\n',
    });
    const client = localClient(data);
    await localWorker(data);
    const request = queueRequest("loud", hash, "scripts/loud.mjs", { maxOutputBytes: 4096 });
    await client.submit(request);
    const answer = await client.waitFor(request.requestId);
    expect(answer.status).toBe("ok");
    expect(answer.stdoutTruncated).toBe(true);
    expect(answer.stderrTruncated).toBe(true);
    expect(Buffer.byteLength(answer.stdout)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(answer.stderr)).toBeLessThanOrEqual(4096);
    expect(answer.stdout.startsWith("xxxx")).toBe(true);
  });

  it("honours a per-skill limit across the pool and never opens the request it skips", async () => {
    const { data, skills, root } = queueTree();
    const { hash } = queuedSkill(data, skills, "sleepy", { "scripts/sleep.mjs": SLEEP });
    const echo = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    const client = localClient(data);
    const first = queueRequest("sleepy", hash, "scripts/sleep.mjs", { arguments: { secret: "first" } });
    const second = queueRequest("sleepy", hash, "scripts/sleep.mjs", { arguments: { secret: "second" } });
    await client.submit(first);
    await client.submit(second);
    // Make the second request's file look unread: its access time before its change time.
    const secondFile = join(queueLayout(data).requests, requestFileName("sleepy", second.requestId));
    const old = new Date(Date.now() - 3600_000);
    utimesSync(secondFile, old, statSync(secondFile).mtime);
    const probe = join(root, "probe");
    writeFileSync(probe, "x");
    utimesSync(probe, old, statSync(probe).mtime);
    readFileSync(probe);
    const atimeUpdates = statSync(probe).atimeMs > old.getTime();
    const limits = { sleepy: { concurrency: 1 } };
    await localWorker(data, { name: "one", skillLimits: limits, concurrency: 4 });
    await localWorker(data, { name: "two", skillLimits: limits, concurrency: 4 });
    const other = queueRequest("echo", echo.hash, "scripts/echo.mjs");
    await client.submit(other);
    expect((await client.waitFor(other.requestId)).status).toBe("ok");
    const status = await client.status();
    expect(status.counts.active).toBe(1);
    expect(status.counts.waiting).toBe(1);
    expect(existsSync(secondFile)).toBe(true);
    // Where reads update access times, the waiting request was never opened by a worker.
    if (atimeUpdates) expect(statSync(secondFile).atimeMs).toBeLessThan(Date.now() - 1800_000);
    const controller = new AbortController();
    controller.abort();
    await client.waitFor(first.requestId, controller.signal);
    await client.waitFor(second.requestId, controller.signal);
  });

  it("a worker judged dead while it runs: its claim is answered interrupted, it registers again and goes on", async () => {
    const { data, skills } = queueTree();
    const slow = queuedSkill(data, skills, "slow", {
      "scripts/slow.mjs": "await new Promise((r) => setTimeout(r, 1000)); console.log('late');\n",
    });
    const echo = queuedSkill(data, skills, "echo", { "scripts/echo.mjs": ECHO });
    const client = localClient(data);
    const { source } = await localWorker(data, { name: "stalled" });
    const first = queueRequest("slow", slow.hash, "scripts/slow.mjs");
    await client.submit(first);
    await eventually("the run to start", async () => expect((await client.status()).counts.active).toBe(1));
    const oldFolder = source.folder ?? "";
    // Its lock looks an hour old, as after a long stall: a sweep judges it dead.
    const old = new Date(Date.now() - 3600_000);
    utimesSync(join(oldFolder, "lock"), old, old);
    expect(sweepDeadWorkers(queueLayout(data), 1000)).toEqual([first.requestId]);
    const answer = await client.waitFor(first.requestId);
    expect(answer.status).toBe("interrupted");
    expect(answer.worker).toBeUndefined();
    await eventually(
      "the worker to register again",
      () => source.folder !== oldFolder && existsSync(source.folder ?? ""),
    );
    const next = queueRequest("echo", echo.hash, "scripts/echo.mjs", { arguments: { after: true } });
    await client.submit(next);
    expect((await client.waitFor(next.requestId)).status).toBe("ok");
    // The stalled run's own answer came too late to replace the first.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(untakenAnswers(queueLayout(data))).toEqual([]);
    expect((await client.status()).counts).toMatchObject({ done: 1, interrupted: 1, failed: 0 });
  });
});
