import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.js";
import { requireBubblewrap } from "../runners/sandbox/harness.js";
import { runCaptured } from "../surfaces/cli/harness.js";
import { localClient, queuedSkill, queueRequest, queueTree } from "./helpers.js";

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** `skillgate worker …` from the sources, with its stdout collected. */
function startCliWorker(
  config: string,
  data: string,
  extra: string[],
): { child: ChildProcess; out: () => string } {
  let out = "";
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/surfaces/cli/main.ts", "--config", config, "--data", data, "worker", ...extra],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return { child, out: () => out };
}

describe("skillgate worker and skillgate queue status", () => {
  it("runs requests in the sandbox, shows in the status, and stops gracefully on SIGTERM", async () => {
    requireBubblewrap();
    const { root, data, skills } = queueTree();
    const config = join(root, "config");
    const { hash } = queuedSkill(data, skills, "pause", {
      "scripts/pause.mjs": "await new Promise((r) => setTimeout(r, 1500)); console.log('finished');\n",
    });
    writeFileSync(join(root, "unused"), "");
    const worker = startCliWorker(config, data, ["--name", "cli-worker", "--concurrency", "1"]);
    await eventually("the worker to start", () => worker.out().includes("takes requests"), {
      timeoutMs: 30_000,
    });
    const status = await runCaptured(["--config", config, "--data", data, "queue", "status", "--json"]);
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.out) as {
      backend: string;
      workers: Array<{ name: string; concurrency: number }>;
    };
    expect(parsed.backend).toBe("local");
    expect(parsed.workers).toEqual([expect.objectContaining({ name: "cli-worker", concurrency: 1 })]);
    const text = await runCaptured(["--config", config, "--data", data, "queue", "status"]);
    expect(text.out).toMatch(/cli-worker/);
    expect(text.out).toMatch(/waiting 0 {3}active 0/);

    const client = localClient(data);
    const running = queueRequest("pause", hash, "scripts/pause.mjs");
    await client.submit(running);
    await eventually("the run to start", async () => expect((await client.status()).counts.active).toBe(1));
    const exited = new Promise<number | null>((resolve) =>
      worker.child.once("exit", (code) => resolve(code)),
    );
    worker.child.kill("SIGTERM");
    await eventually("the worker to say it stops", () => worker.out().includes("taking no new requests"));
    const later = queueRequest("pause", hash, "scripts/pause.mjs");
    await client.submit(later);
    const answer = await client.waitFor(running.requestId);
    expect(answer.status, `${answer.message ?? answer.stderr}\n${worker.out()}`).toBe("ok");
    expect(answer.stdout).toBe("finished\n");
    expect(answer.worker?.name).toBe("cli-worker");
    expect(await exited).toBe(0);
    // The request sent after SIGTERM was not taken: it still waits for a worker.
    expect((await client.status()).counts).toMatchObject({ waiting: 1, active: 0 });
    expect(existsSync(join(data, "queue", "workers"))).toBe(true);
    expect((await client.status()).workers).toEqual([]);
  });

  it("skillgate run of a queue skill: refused at once with no worker, run by a worker once one runs", async () => {
    requireBubblewrap();
    const { root, data } = queueTree();
    const config = join(root, "config");
    const project = join(root, "project");
    const skill = join(project, ".agents", "skills", "pooled");
    mkdirSync(join(skill, "scripts"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: pooled\ndescription: Runs on the pool.\nmetadata:\n  skillgate.execution: queue\n---\nBody.\n",
    );
    writeFileSync(
      join(skill, "scripts", "hello.mjs"),
      "console.log('hello', JSON.parse(process.env.SKILLGATE_SKILL_ARGS).who);\n",
    );
    const flags = ["--config", config, "--data", data, "--root", project, "--no-builtins"];
    const run = ["run", "pooled", "scripts/hello.mjs", "--yes", "--args", '{"who":"pool"}'];
    const refused = await runCaptured([...flags, ...run]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/HOST: no worker of the pool is running.*\[queue_no_worker\]/);
    const worker = startCliWorker(config, data, ["--name", "runner-test"]);
    await eventually("the worker to start", () => worker.out().includes("takes requests"), {
      timeoutMs: 30_000,
    });
    const ran = await runCaptured([...flags, ...run]);
    expect(ran.code, ran.err).toBe(0);
    expect(ran.out).toBe("hello pool\n");
  });

  it("refuses a bad --concurrency before starting", async () => {
    const { root, data } = queueTree();
    const run = await runCaptured([
      "--config",
      join(root, "config"),
      "--data",
      data,
      "worker",
      "--concurrency",
      "0",
    ]);
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(/--concurrency takes a whole number from 1 to 1024/);
  });
});
