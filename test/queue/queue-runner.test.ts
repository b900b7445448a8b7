import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { QueueClient } from "../../src/queue/contract.js";
import { type QueueRunFinished, QueueRunner } from "../../src/queue/queue-runner.js";
import { DEFAULT_RUN_LIMITS, type RunRequest } from "../../src/runners/contract.js";
import { RunnerRouter } from "../../src/runners/router.js";
import { SandboxRunner } from "../../src/runners/sandbox/index.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { eventually } from "../helpers/eventually.js";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import { localClient, localWorker, queuedSkill, queueTree } from "./helpers.js";

function runRequest(
  folder: string,
  skill: string,
  hash: string,
  script: string,
  extra: Partial<RunRequest> = {},
): RunRequest {
  return {
    skill,
    hash,
    folder,
    execution: "queue",
    script,
    language: "node",
    arguments: { greeting: "hi" },
    limits: DEFAULT_RUN_LIMITS,
    call: { requestId: "call-1", scope: { kind: "chat", id: "chat-1" } },
    ...extra,
  };
}

function queueRouter(data: string, client: QueueClient, finished: QueueRunFinished[], maxWaitMs?: number) {
  const snapshots = new SnapshotStore({ dataFolder: data });
  const queue = new QueueRunner({
    client: async () => client,
    dataFolder: data,
    onFinished: (event) => finished.push(event),
    ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
  });
  return { router: new RunnerRouter({ snapshots, runners: { queue } }), queue };
}

describe("QueueRunner", () => {
  it("runs a queue-mode script through the router in a worker's sandbox and audits the worker's name", async () => {
    requireBubblewrap();
    const { data, skills } = queueTree();
    const script = [
      'import { readdirSync } from "node:fs";',
      "let seen = 'hidden';",
      `try { readdirSync(${JSON.stringify(data)}); seen = 'visible'; } catch {}`,
      "const args = JSON.parse(process.env.SKILLGATE_SKILL_ARGS);",
      "console.log(JSON.stringify({ args, seen, uid: process.getuid() }));",
    ].join("\n");
    const { folder, hash } = queuedSkill(data, skills, "greet", { "scripts/greet.mjs": `${script}\n` });
    const finished: QueueRunFinished[] = [];
    const { router } = queueRouter(data, localClient(data), finished);
    await localWorker(data, { name: "sandboxed", runner: new SandboxRunner({ prestart: false }) });
    const result = await router.run(runRequest(folder, "greet", hash, "scripts/greet.mjs"));
    expect(result.status, result.message ?? result.stderr).toBe("ok");
    const seen = JSON.parse(result.stdout) as { args: unknown; seen: string; uid: number };
    expect(seen.args).toEqual({ greeting: "hi" });
    // The data folder (the queue and other requests' arguments) is not in the sandbox.
    expect(seen.seen).toBe("hidden");
    expect(seen.uid).not.toBe(0);
    expect(finished).toEqual([
      expect.objectContaining({ skill: "greet", status: "ok", worker: "sandboxed", caller: "waiting" }),
    ]);
  });

  it("refuses with HOST: when no worker runs, when the queue is full, and when no worker takes it in time", async () => {
    const { data, skills } = queueTree();
    const { folder, hash } = queuedSkill(data, skills, "sleepy", {
      "scripts/sleep.mjs": "await new Promise((r) => setTimeout(r, 60_000));\n",
    });
    const finished: QueueRunFinished[] = [];
    const client = localClient(data, 1);
    const { router } = queueRouter(data, client, finished, 200);
    const limits = { timeoutMs: 300, maxOutputBytes: 1024 };
    const nobody = await router.run(runRequest(folder, "sleepy", hash, "scripts/sleep.mjs", { limits }));
    expect(nobody.status).toBe("refused");
    expect(nobody.code).toBe("queue_no_worker");
    expect(nobody.message).toMatch(/^HOST: no worker of the pool is running/);
    await localWorker(data, { concurrency: 1 });
    const busy = router.run(
      runRequest(folder, "sleepy", hash, "scripts/sleep.mjs", {
        limits: { timeoutMs: 3000, maxOutputBytes: 1024 },
      }),
    );
    await eventually("the first run to start", async () =>
      expect((await client.status()).counts.active).toBe(1),
    );
    const waiting = router.run(runRequest(folder, "sleepy", hash, "scripts/sleep.mjs", { limits }));
    await eventually("the second to wait", async () =>
      expect((await client.status()).counts.waiting).toBe(1),
    );
    const full = await router.run(runRequest(folder, "sleepy", hash, "scripts/sleep.mjs", { limits }));
    expect(full.status).toBe("refused");
    expect(full.code).toBe("queue_full");
    expect(full.message).toBe(
      "HOST: the worker pool's queue is full (1 waiting); try again later. [queue_full]",
    );
    const late = await waiting;
    expect(late.status).toBe("refused");
    expect(late.code).toBe("queue_no_worker");
    expect(late.message).toMatch(/^HOST: no worker of the pool took/);
    expect((await busy).status).toBe("timed_out");
  });

  it("an abort by the caller cancels the run: interrupted with a HOST: text", async () => {
    const { data, skills } = queueTree();
    const { folder, hash } = queuedSkill(data, skills, "sleepy", {
      "scripts/sleep.mjs": "await new Promise((r) => setTimeout(r, 60_000));\n",
    });
    const client = localClient(data);
    const { router } = queueRouter(data, client, []);
    await localWorker(data);
    const controller = new AbortController();
    const running = router.run(
      runRequest(folder, "sleepy", hash, "scripts/sleep.mjs", { signal: controller.signal }),
    );
    await eventually("the run to start", async () => expect((await client.status()).counts.active).toBe(1));
    controller.abort();
    const result = await running;
    expect(result.status).toBe("interrupted");
    expect(result.message).toMatch(/^HOST: the call was cancelled/);
  });

  it("a worker killed mid-run: interrupted, never run again", async () => {
    const { data, skills, root } = queueTree();
    const log = `${root}/starts.log`;
    const { folder, hash } = queuedSkill(data, skills, "slow", {
      "scripts/slow.mjs": `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, "start\\n");\nawait new Promise((r) => setTimeout(r, 60_000));\n`,
    });
    const client = localClient(data);
    const finished: QueueRunFinished[] = [];
    const { router } = queueRouter(data, client, finished);
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "test/helpers/queue-chaos-worker.ts",
        "--data",
        data,
        "--name",
        "doomed",
        "--heartbeat-ms",
        "500",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => child.stdout.on("data", () => resolve()));
    const running = router.run(runRequest(folder, "slow", hash, "scripts/slow.mjs"));
    await eventually("the script to start", () => existsSync(log));
    child.kill("SIGKILL");
    const result = await running;
    expect(result.status).toBe("interrupted");
    expect(result.code).toBe("worker_lost");
    expect(result.message).toMatch(/^HOST: worker doomed went away/);
    await localWorker(data, { name: "survivor" });
    expect((await client.status()).counts).toMatchObject({ waiting: 0, active: 0, interrupted: 1 });
    expect(readFileSync(log, "utf8")).toBe("start\n");
    expect(finished).toEqual([expect.objectContaining({ status: "interrupted", code: "worker_lost" })]);
  });

  it("a controller restarted while its job runs: the answer still reaches the audit, caller gone", async () => {
    const { data, skills } = queueTree();
    const { hash } = queuedSkill(data, skills, "later", {
      "scripts/later.mjs": "await new Promise((r) => setTimeout(r, 300)); console.log('late');\n",
    });
    const controller = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "test/helpers/queue-controller-process.ts",
        data,
        "later",
        hash,
        "scripts/later.mjs",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => controller.stdout.on("data", () => resolve()));
    controller.kill("SIGKILL");
    await new Promise<void>((resolve) => controller.once("exit", () => resolve()));
    await localWorker(data, { name: "finisher" });
    const finished: QueueRunFinished[] = [];
    const restarted = new QueueRunner({
      client: async () => localClient(data),
      dataFolder: data,
      onFinished: (event) => finished.push(event),
    });
    expect(restarted.collectGoneCallers()).toBe(1);
    await eventually("the gone caller's answer", () => expect(finished).toHaveLength(1));
    expect(finished[0]).toMatchObject({
      skill: "later",
      status: "ok",
      worker: "finisher",
      caller: "gone",
      call: { requestId: "call-1", scope: { kind: "chat", id: "chat-1" } },
    });
    expect(restarted.collectGoneCallers()).toBe(0);
    restarted.close();
  });
});
