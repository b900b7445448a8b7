import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_QUEUE_CONFIG } from "../../../src/config/queue-config.js";
import { queueLayout } from "../../../src/queue/local/layout.js";
import { RequestSeal } from "../../../src/queue/local/request-seal.js";
import { startQueueWorker } from "../../../src/queue/queue-setup.js";
import { SandboxRunner } from "../../../src/runners/sandbox/index.js";
import { SnapshotStore } from "../../../src/runners/snapshot.js";
import { startRedis } from "../../helpers/redis-server.js";
import { requireTools } from "../../helpers/required-tools.js";
import { queuedSkill, queueTree } from "../helpers.js";
import { testClient, testRequest } from "./redis-helpers.js";

/**
 * The shared worker core on the Redis backend, with the real sandbox: a script runs on a
 * worker that took it from BullMQ and its output comes back; a worker whose copy of the skill
 * does not match the approved hash refuses the run (`skill_changed`).
 */

requireTools("bwrap");

const ECHO = 'printf "hello from %s\\n" "$(cat /etc/hostname 2>/dev/null || echo sandbox)"\n';

async function setUp() {
  const redis = await startRedis();
  const { data, skills } = queueTree();
  const { hash } = queuedSkill(data, skills, "hello", { "scripts/hello.sh": ECHO });
  const client = testClient(redis.url, { seal: RequestSeal.open(queueLayout(data).sealKey) });
  const worker = await startQueueWorker({
    dataFolder: data,
    name: "core-1",
    concurrency: 1,
    config: () => ({ ...DEFAULT_QUEUE_CONFIG, backend: "redis", redis: { url: redis.url } }),
    runner: new SandboxRunner({ prestart: false }),
    redis: { lockDurationMs: 1500, stalledIntervalMs: 500 },
  });
  return { redis, data, hash, client, worker };
}

describe("the worker core on the Redis backend", () => {
  it("runs a queued script in the sandbox and answers with its output and the worker's name", async () => {
    const { hash, client, worker } = await setUp();
    try {
      const request = testRequest({ skill: "hello", hash, script: "scripts/hello.sh", arguments: {} });
      await client.submit(request);
      const answer = await client.waitFor(request.requestId);
      expect(answer.status).toBe("ok");
      expect(answer.stdout).toMatch(/^hello from /);
      expect(answer.worker?.name).toBe("core-1");
    } finally {
      await worker.stop();
    }
  });

  it("refuses a run when the worker's copy does not match the hash (skill_changed); nothing runs", async () => {
    const { data, hash, client, worker } = await setUp();
    try {
      const snapshot = new SnapshotStore({ dataFolder: data }).folderOf(hash);
      const script = join(snapshot, "scripts", "hello.sh");
      chmodSync(join(snapshot, "scripts"), 0o755);
      chmodSync(script, 0o644);
      writeFileSync(script, 'echo "changed after approval"\n');
      const request = testRequest({ skill: "hello", hash, script: "scripts/hello.sh", arguments: {} });
      await client.submit(request);
      const answer = await client.waitFor(request.requestId);
      expect(answer).toMatchObject({ status: "refused", code: "skill_changed", stdout: "" });
      expect(answer.message).toMatch(/^HOST: /);
    } finally {
      await worker.stop();
    }
  });
});
