import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import type { QueueRequest } from "../../src/queue/contract.js";
import { LocalQueueClient } from "../../src/queue/local/local-queue-client.js";
import { LocalWorkerSource } from "../../src/queue/local/local-worker-source.js";
import { newQueueId } from "../../src/queue/queue-runner.js";
import { SnapshotSkillFiles } from "../../src/queue/worker/skill-files.js";
import { type RunningWorker, startWorker } from "../../src/queue/worker/worker.js";
import type { Runner } from "../../src/runners/contract.js";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";

/** Folders removed after each test (read-only snapshots included). */
const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) removeTree(folder);
});

/** A fresh folder with a data folder and a skills folder inside. */
export function queueTree(): { root: string; data: string; skills: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-queue-")));
  // The sandbox user passes through to the snapshots.
  chmodSync(root, 0o755);
  made.push(root);
  const data = join(root, "data");
  const skills = join(root, "skills");
  mkdirSync(data, { recursive: true });
  mkdirSync(skills, { recursive: true });
  return { root, data, skills };
}

/**
 * Writes a skill and makes the controller's verified snapshot of it in the data folder, as the
 * router does before the queue runner is called; returns its folder and hash.
 */
export function queuedSkill(
  data: string,
  skills: string,
  name: string,
  files: Record<string, string>,
): { folder: string; hash: string } {
  const folder = join(skills, name);
  const all = { "SKILL.md": `---\nname: ${name}\ndescription: Test skill ${name}.\n---\nBody.\n`, ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  const hash = hashSkillFolder(folder).hash;
  if (hash === undefined) throw new Error(`${folder} has no hash`);
  const prepared = new SnapshotStore({ dataFolder: data }).prepare({
    skill: name,
    hash,
    folder,
    script: "x",
  });
  if (!prepared.ok) throw new Error(prepared.refusal.message);
  return { folder, hash };
}

/** The command line of a queue test worker process (test/helpers/queue-chaos-worker.ts). */
export function workerProcessArgs(
  data: string,
  name: string,
  options: {
    concurrency?: number;
    heartbeatMs?: number;
    runner?: "local" | "sandbox";
    limits?: object;
    /** A Redis URL: the worker takes requests from BullMQ there (with a short lock, `lockMs`). */
    redis?: string;
    lockMs?: number;
  } = {},
): string[] {
  return [
    "--import",
    "tsx",
    "test/helpers/queue-chaos-worker.ts",
    "--data",
    data,
    "--name",
    name,
    "--concurrency",
    String(options.concurrency ?? 2),
    "--heartbeat-ms",
    String(options.heartbeatMs ?? 1000),
    "--runner",
    options.runner ?? "local",
    "--limits",
    JSON.stringify(options.limits ?? {}),
    ...(options.redis !== undefined
      ? ["--redis", options.redis, "--lock-ms", String(options.lockMs ?? 1500)]
      : []),
  ];
}

/** A request of `skill` at `hash` running `script`, with defaults for the rest. */
export function queueRequest(
  skill: string,
  hash: string,
  script: string,
  overrides: Partial<QueueRequest> = {},
): QueueRequest {
  return {
    requestId: newQueueId(),
    skill,
    hash,
    script,
    arguments: {},
    timeoutMs: 30_000,
    maxOutputBytes: 64 * 1024,
    network: "none",
    allowedDomains: [],
    submittedAt: new Date().toISOString(),
    ...overrides,
  };
}

/** An in-process worker on the local queue of `data`, stopped after the test. */
export async function localWorker(
  data: string,
  options: {
    name?: string;
    runner?: Runner;
    concurrency?: number;
    skillLimits?: Record<string, { concurrency: number }>;
  } = {},
): Promise<{ worker: RunningWorker; source: LocalWorkerSource }> {
  const source = new LocalWorkerSource({
    dataFolder: data,
    name: options.name ?? "test-worker",
    heartbeatMs: 500,
    pollMs: 50,
    skillLimits: () => options.skillLimits ?? {},
  });
  const worker = await startWorker({
    source,
    skillFiles: new SnapshotSkillFiles(data),
    runner: options.runner ?? new LocalRunner({ dataFolder: data, isTrusted: () => true }),
    name: options.name ?? "test-worker",
    concurrency: options.concurrency ?? 2,
  });
  running.push(source, worker);
  return { worker, source };
}

const running: Array<RunningWorker | LocalWorkerSource> = [];

afterEach(async () => {
  for (const item of running.splice(0)) {
    if (item instanceof LocalWorkerSource) item.abortAll();
    else await item.stop();
  }
});

/** A client of the local queue of `data` with a short heartbeat and poll. */
export function localClient(data: string, capacity = 1000): LocalQueueClient {
  return new LocalQueueClient({ dataFolder: data, capacity, heartbeatMs: 500, pollMs: 50 });
}
