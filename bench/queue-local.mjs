/**
 * The local queue benchmark (issue 16): the round trip of a no-op script through the local
 * file queue (submit, a worker in the same process claims it, runs it in the sandbox, answers,
 * the caller takes the answer) against
 *
 * - bare file operations: the same file work done directly, with the same flushes: write the
 *   request (temporary file, fsync, rename, fsync the folder), rename it into a claim folder,
 *   write the response (temporary file, fsync, link, fsync the folder), read it, link it as taken;
 * - a bare sandbox run: the same no-op script through the same SandboxRunner, no queue.
 *
 * The queue's own cost is (round trip - bare sandbox run), compared with the bare file
 * operations. Rounds alternate the three; figures are medians with minimums, ratios are
 * ratios of medians. `node bench/run.mjs --only queue-local [--queue-rounds N]`, against the
 * built dist/.
 */

import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

/** Idle time between timed runs, as in the sandbox benchmark (the pool starts its next sandbox). */
const PAUSE_MS = 30;

const load = (path) => import(pathToFileURL(join(distFolder(), path)).href);

function fsyncFolder(folder) {
  const descriptor = openSync(folder, "r");
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function writeFlushed(path, text) {
  const descriptor = openSync(path, "wx", 0o600);
  try {
    writeSync(descriptor, text);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** The bare file operations of one round trip, with the queue's flushes. */
function bareFileRound(root, index, body) {
  const requests = join(root, "requests");
  const claimed = join(root, "claimed");
  const responses = join(root, "responses");
  const finished = join(root, "finished");
  const started = performance.now();
  const temporary = join(requests, `.tmp-${index}`);
  writeFlushed(temporary, body);
  renameSync(temporary, join(requests, `${index}.json`));
  fsyncFolder(requests);
  renameSync(join(requests, `${index}.json`), join(claimed, `${index}.json`));
  readFileSync(join(claimed, `${index}.json`));
  const answer = join(responses, `.tmp-${index}`);
  writeFlushed(answer, body);
  linkSync(answer, join(responses, `${index}.json`));
  unlinkSync(answer);
  fsyncFolder(responses);
  unlinkSync(join(claimed, `${index}.json`));
  readFileSync(join(responses, `${index}.json`));
  // Taken: a hard link marks it, the answer keeps its name (the id's tombstone), as the queue does.
  linkSync(join(responses, `${index}.json`), join(finished, `${index}.json`));
  return performance.now() - started;
}

/** Runs the benchmark; returns the samples and their medians. */
export async function runQueueLocalBenchmark({ rounds = 30, log = () => {} } = {}) {
  const { LocalQueueClient } = await load("queue/local/local-queue-client.js");
  const { LocalWorkerSource } = await load("queue/local/local-worker-source.js");
  const { startWorker } = await load("queue/worker/worker.js");
  const { SnapshotSkillFiles } = await load("queue/worker/skill-files.js");
  const { newQueueId } = await load("queue/queue-runner.js");
  const { SandboxRunner } = await load("runners/sandbox/index.js");
  const { SnapshotStore } = await load("runners/snapshot.js");
  const { hashSkillFolder } = await load("skill/content-hash.js");

  const root = mkdtempSync(join(tmpdir(), "skillgate-bench-queue-"));
  chmodSync(root, 0o755);
  const data = join(root, "data");
  const skill = join(root, "skills", "noop");
  mkdirSync(join(skill, "scripts"), { recursive: true });
  const { writeFileSync } = await import("node:fs");
  writeFileSync(join(skill, "SKILL.md"), "---\nname: noop\ndescription: A no-op skill.\n---\nBody.\n");
  writeFileSync(join(skill, "scripts", "noop.js"), "\n");
  const hash = hashSkillFolder(skill).hash;
  const snapshots = new SnapshotStore({ dataFolder: data });
  const prepared = snapshots.prepare({ skill: "noop", hash, folder: skill, script: "scripts/noop.js" });
  if (!prepared.ok) throw new Error(prepared.refusal.message);
  const bare = join(root, "bare");
  for (const folder of ["requests", "claimed", "responses", "finished"])
    mkdirSync(join(bare, folder), { recursive: true });

  const runner = new SandboxRunner({});
  const client = new LocalQueueClient({ dataFolder: data, capacity: 10_000, heartbeatMs: 2000 });
  const source = new LocalWorkerSource({ dataFolder: data, name: "bench", heartbeatMs: 2000 });
  const worker = await startWorker({
    source,
    skillFiles: new SnapshotSkillFiles(data),
    runner,
    name: "bench",
    concurrency: 1,
  });
  const request = () => ({
    requestId: newQueueId(),
    skill: "noop",
    hash,
    script: "scripts/noop.js",
    arguments: {},
    timeoutMs: 30_000,
    maxOutputBytes: 64 * 1024,
    network: "none",
    allowedDomains: [],
    submittedAt: new Date().toISOString(),
  });
  const sandboxRun = async () => {
    const started = performance.now();
    const result = await runner.run({
      skill: "noop",
      hash,
      folder: prepared.snapshot.folder,
      snapshot: prepared.snapshot,
      execution: "sandbox",
      script: "scripts/noop.js",
      language: "node",
      arguments: {},
      limits: { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 },
    });
    if (result.status !== "ok")
      throw new Error(`the bare sandbox run ended ${result.status}: ${result.message ?? result.stderr}`);
    return performance.now() - started;
  };
  const queueRun = async () => {
    const queued = request();
    const started = performance.now();
    await client.submit(queued);
    const answer = await client.waitFor(queued.requestId);
    if (answer.status !== "ok")
      throw new Error(`the queued run ended ${answer.status}: ${answer.message ?? answer.stderr}`);
    return performance.now() - started;
  };
  const body = JSON.stringify({ request: request(), seal: "0".repeat(64) });
  const samples = { queue: [], sandbox: [], files: [] };
  try {
    // Warm-up: the interpreter lookup, the first sandbox, the module caches.
    for (let index = 0; index < 3; index += 1) {
      await sandboxRun();
      await queueRun();
    }
    for (let round = 0; round < rounds; round += 1) {
      const order = [
        ["queue", queueRun],
        ["sandbox", sandboxRun],
        ["files", async () => bareFileRound(bare, round, body)],
      ];
      for (let turn = 0; turn < order.length; turn += 1) {
        const [name, run] = order[(round + turn) % order.length];
        samples[name].push(await run());
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      if ((round + 1) % 10 === 0) log(`queue-local: ${round + 1}/${rounds} rounds`);
    }
  } finally {
    await worker.stop();
    await runner.close();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
  const medians = {
    queue: median(samples.queue),
    sandbox: median(samples.sandbox),
    files: median(samples.files),
  };
  return {
    rounds,
    samples,
    medians,
    min: {
      queue: Math.min(...samples.queue),
      sandbox: Math.min(...samples.sandbox),
      files: Math.min(...samples.files),
    },
  };
}

/** The results as the report's lines. */
export function formatQueueLocalResults(results) {
  const { medians, min, rounds } = results;
  const overhead = medians.queue - medians.sandbox;
  const lines = [
    `## Worker pool: local backend (${rounds} rounds, medians; min in brackets)`,
    "",
    "| what | median ms | min ms |",
    "| --- | ---: | ---: |",
    `| queue round trip, no-op script (submit, claim, sandbox run, answer, take) | ${medians.queue.toFixed(2)} | ${min.queue.toFixed(2)} |`,
    `| bare sandbox run, same runner and script | ${medians.sandbox.toFixed(2)} | ${min.sandbox.toFixed(2)} |`,
    `| bare file operations of one round trip (with the same flushes) | ${medians.files.toFixed(2)} | ${min.files.toFixed(2)} |`,
    "",
    `queue round trip / bare sandbox run: ${(medians.queue / medians.sandbox).toFixed(2)}x`,
    `queue round trip / (bare sandbox run + bare file operations): ${(medians.queue / (medians.sandbox + medians.files)).toFixed(2)}x`,
    `the queue's own cost (round trip - sandbox run) / bare file operations: ${(overhead / medians.files).toFixed(2)}x`,
  ];
  return lines.join("\n");
}
