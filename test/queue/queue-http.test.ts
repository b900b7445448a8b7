import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditPage } from "../../src/app/owner/audit-page.js";
import type { QueueStatus } from "../../src/queue/contract.js";
import { DEFAULT_RUN_LIMITS } from "../../src/runners/contract.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { eventually } from "../helpers/eventually.js";
import { startTestServer, type TestServerFolders } from "../helpers/http-server.js";
import { requireBubblewrap } from "../runners/sandbox/harness.js";

function writeQueueSkill(folders: TestServerFolders): void {
  // The sandbox user passes through the tree to the snapshots.
  chmodSync(folders.tree, 0o755);
  const folder = join(folders.skills, "pooled");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    "---\nname: pooled\ndescription: Runs on the worker pool.\nmetadata:\n  skillgate.execution: queue\n---\nBody.\n",
  );
  writeFileSync(join(folder, "scripts", "hello.mjs"), "console.log('hello from the pool');\n");
}

describe("serve and the worker pool", () => {
  it("starts an in-process worker when none runs, shows it at /api/queue, and audits each run with its name", async () => {
    requireBubblewrap();
    const test = await startTestServer({ prepare: writeQueueSkill, builtins: false });
    const { status, body } = await test.json<QueueStatus>("/api/queue");
    expect(status).toBe(200);
    expect(body.backend).toBe("local");
    expect(body.workers).toEqual([
      expect.objectContaining({ name: `serve-${process.pid}`, stopping: false }),
    ]);
    const folder = join(test.folders.skills, "pooled");
    const hash = hashSkillFolder(folder).hash ?? "";
    const result = await test.server.context.host.skillgate.runner.run({
      skill: "pooled",
      hash,
      folder,
      execution: "queue",
      script: "scripts/hello.mjs",
      language: "node",
      arguments: {},
      limits: DEFAULT_RUN_LIMITS,
      call: { requestId: "call-7", scope: { kind: "chat", id: "chat-7" } },
    });
    expect(result.status, result.message ?? result.stderr).toBe("ok");
    expect(result.stdout).toBe("hello from the pool\n");
    const events = await eventually("the audit line", () => {
      const found = auditPage(test.folders.data).events.filter(
        (event) => event.type === "queue-run-finished",
      );
      return found.length > 0 ? found : false;
    });
    expect(events[0]).toMatchObject({
      requestId: "call-7",
      skill: "pooled",
      hash8: hash.slice(0, 8),
      status: "ok",
      worker: `serve-${process.pid}`,
      caller: "waiting",
    });
    const after = await test.json<QueueStatus>("/api/queue");
    expect(after.body.counts).toMatchObject({ waiting: 0, active: 0, done: 1 });
  });

  it("starts no worker with queue.workers.in_process: off; a queued run is then refused at once", async () => {
    const test = await startTestServer({
      prepare: writeQueueSkill,
      builtins: false,
      configYaml: "queue:\n  workers: { in_process: off }\n",
    });
    const { body } = await test.json<QueueStatus>("/api/queue");
    expect(body.workers).toEqual([]);
    const folder = join(test.folders.skills, "pooled");
    const result = await test.server.context.host.skillgate.runner.run({
      skill: "pooled",
      hash: hashSkillFolder(folder).hash ?? "",
      folder,
      execution: "queue",
      script: "scripts/hello.mjs",
      language: "node",
      arguments: {},
      limits: DEFAULT_RUN_LIMITS,
    });
    expect(result.status).toBe("refused");
    expect(result.code).toBe("queue_no_worker");
    expect(result.message).toMatch(/^HOST: /);
  });

  it("needs the owner's token", async () => {
    const test = await startTestServer({ server: { queue: false } });
    const answer = await test.raw("GET", "/api/queue");
    expect(answer.status).toBe(401);
  });
});
