/**
 * The worker pool's Redis backend (issue 16), against the built package and a redis-server of its
 * own (a free port, a temporary folder, AOF on with `appendfsync everysec`, the production
 * setting docs/queue.md recommends).
 *
 * Round trip of a no-op Python script (`pass`), one request at a time, one worker:
 * - skillgate queue: `RedisQueueClient.submit` + `waitFor` from the controller's side, answered
 *   by a `skillgate worker --redis URL --concurrency 1` process (the CLI, as an owner runs it):
 *   the seal, the claim, the snapshot hashed again, the sandbox run, the answer written once.
 * - bare BullMQ: `Queue.add` + `job.waitUntilFinished` on the same Redis, a `Worker` in this
 *   process with an empty processor: the least a BullMQ round trip costs.
 * - skillgate sandbox run: `SandboxRunner.run` of the same script from the same snapshot, as the
 *   worker runs it, in this process (no queue).
 * - bare bwrap: bubblewrap running the script with the same mounts (bench/sandbox-runs.mjs).
 * - skillgate queue, no run: the same client against a `RedisQueueWorkerSource` in this process
 *   whose handler answers at once: the backend's own cost (seal, claim, answer key, pub/sub) next
 *   to the bare BullMQ round trip, without the sandbox's noise.
 * Target: skillgate queue <= 1.3x (bare BullMQ + skillgate sandbox run), medians; the ratio to
 * (bare BullMQ + bare bwrap) is shown too.
 *
 * Throughput of no-op runs with 1, 2 and 4 worker processes (concurrency 1 each): N requests
 * submitted at once, timed from the first submit to the last answer; against the same number of
 * loops running bare bwrap for N runs in all. Runs per second and their ratio; no target.
 * `node bench/queue-redis.mjs [rounds] [runs]` runs it alone; `--only queue-redis` in run.mjs.
 */

import { spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { timedSpawn } from "./sandbox.mjs";
import { bareBwrapArgv, resultRows, runRotatedRounds } from "./sandbox-runs.mjs";

/** The round-trip target: the queue's overhead over a bare BullMQ job plus the run itself. */
export const QUEUE_REDIS_TARGET = {
  label: "skillgate queue <= 1.3x (bare BullMQ round trip + skillgate sandbox run), medians",
  limit: 1.3,
};

const SCRIPT = "scripts/noop.py";

async function distImport(...path) {
  return import(pathToFileURL(join(distFolder(), ...path)).href);
}

async function freePort() {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** redis-server on a free port in `folder`; resolves once it accepts connections. */
async function startRedis(folder) {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    [
      ...["--port", String(port), "--bind", "127.0.0.1", "--dir", folder, "--save", ""],
      ...["--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory-policy", "noeviction"],
      ...["--logfile", ""],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise((resolve, reject) => {
    let log = "";
    child.stdout.on("data", (chunk) => {
      log += chunk;
      if (log.includes("Ready to accept connections")) resolve();
    });
    child.once("error", (error) =>
      reject(new Error(`redis-server cannot start (${error.message}): run scripts/install-test-deps.sh`)),
    );
    child.once("exit", (code) => reject(new Error(`redis-server ended (${code}):\n${log}`)));
  });
  child.stdout.resume();
  child.stderr.resume();
  return { url: `redis://127.0.0.1:${port}`, port, stop: () => child.kill("SIGKILL") };
}

/** A `skillgate worker --redis` process from the built package; resolves once it takes requests. */
async function startCliWorker({ config, data, url, name }) {
  const child = spawn(
    process.execPath,
    [
      join(distFolder(), "surfaces", "cli", "main.js"),
      ...["--config", config, "--data", data],
      ...["worker", "--redis", url, "--concurrency", "1", "--name", name],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      out += chunk;
      if (out.includes("takes requests")) resolve();
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`worker ${name} ended (${code}):\n${out}`)));
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A no-op skill with its verified snapshot in `data`, as the router makes it. */
async function noopSkill(root, data) {
  const { hashSkillFolder } = await distImport("skill", "content-hash.js");
  const { SnapshotStore } = await distImport("runners", "snapshot.js");
  const folder = join(root, "skills", "bench-noop");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), "---\nname: bench-noop\ndescription: A no-op.\n---\nRun it.\n");
  writeFileSync(join(folder, SCRIPT), "pass\n");
  const { hash } = hashSkillFolder(folder);
  const store = new SnapshotStore({ dataFolder: data });
  const prepared = store.prepare({ skill: "bench-noop", hash, folder, script: SCRIPT });
  if (!prepared.ok) throw new Error(prepared.refusal.message);
  return { hash, snapshot: store.folderOf(hash) };
}

/** Runs the benchmark; returns the round-trip rows, the throughput rows and the target's outcome. */
export async function runQueueRedisBenchmark({ rounds = 30, runs = 60, log = () => undefined } = {}) {
  const { Queue, QueueEvents, Worker } = await import("bullmq");
  const { RedisQueueClient } = await distImport("queue", "redis", "redis-queue-client.js");
  const { RedisQueueWorkerSource } = await distImport("queue", "redis", "redis-worker-source.js");
  const { RequestSeal } = await distImport("queue", "local", "request-seal.js");
  const { queueLayout } = await distImport("queue", "local", "layout.js");
  const { newQueueId } = await distImport("queue", "queue-runner.js");
  const { SandboxRunner } = await distImport("runners", "sandbox", "index.js");
  const isRoot = process.getuid?.() === 0;
  const root = mkdtempSync(join(tmpdir(), "skillgate-bench-queue-redis-"));
  chmodSync(root, 0o755);
  const data = join(root, "data");
  const config = join(root, "config");
  mkdirSync(join(root, "redis"), { recursive: true });
  mkdirSync(config, { recursive: true });
  const redis = await startRedis(join(root, "redis"));
  const closers = [];
  try {
    writeFileSync(
      join(config, "config.yaml"),
      `queue:\n  backend: redis\n  redis:\n    url: ${redis.url}\n  capacity: 100000\n  workers:\n    in_process: "off"\n`,
    );
    const { hash, snapshot } = await noopSkill(root, data);
    const client = new RedisQueueClient({
      url: redis.url,
      seal: RequestSeal.open(queueLayout(data).sealKey),
      capacity: 100_000,
    });
    closers.push(() => client.close());
    const request = () => ({
      requestId: newQueueId(),
      skill: "bench-noop",
      hash,
      script: SCRIPT,
      arguments: {},
      timeoutMs: 30_000,
      maxOutputBytes: 65_536,
      network: "none",
      allowedDomains: [],
      submittedAt: new Date().toISOString(),
    });
    const roundTrip = async () => {
      const started = performance.now();
      const queued = request();
      await client.submit(queued);
      const answer = await client.waitFor(queued.requestId);
      const elapsed = performance.now() - started;
      if (answer.status !== "ok")
        throw new Error(`queued run: ${answer.status} ${answer.message ?? answer.stderr}`);
      return elapsed;
    };

    const seal = RequestSeal.open(queueLayout(data).sealKey);
    const emptyClient = new RedisQueueClient({ url: redis.url, seal, queueName: "empty", capacity: 100_000 });
    const emptySource = new RedisQueueWorkerSource({
      url: redis.url,
      seal,
      queueName: "empty",
      name: "empty",
    });
    closers.push(
      () => emptySource.stop(),
      () => emptyClient.close(),
    );
    await emptySource.start(async (claimed) => {
      await claimed.answer({
        requestId: claimed.request.requestId,
        status: "ok",
        exitCode: 0,
        stdout: "",
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 0,
        finishedAt: new Date().toISOString(),
      });
    }, 1);
    const emptyTrip = async () => {
      const started = performance.now();
      const queued = request();
      await emptyClient.submit(queued);
      const answer = await emptyClient.waitFor(queued.requestId);
      if (answer.status !== "ok") throw new Error(`empty run: ${answer.status}`);
      return performance.now() - started;
    };

    const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
    const bareQueue = new Queue("bare", { connection });
    const bareEvents = new QueueEvents("bare", { connection });
    const bareWorker = new Worker("bare", async () => "ok", { connection, concurrency: 1 });
    closers.push(
      () => bareWorker.close(),
      () => bareEvents.close(),
      () => bareQueue.close(),
    );
    await Promise.all([bareQueue.waitUntilReady(), bareEvents.waitUntilReady(), bareWorker.waitUntilReady()]);
    const bareBull = async () => {
      const started = performance.now();
      const job = await bareQueue.add("noop", {}, { removeOnComplete: true, removeOnFail: true });
      await job.waitUntilFinished(bareEvents);
      return performance.now() - started;
    };

    const runner = new SandboxRunner();
    closers.push(() => runner.close());
    const sandboxRun = async () => {
      const started = performance.now();
      const result = await runner.run({
        skill: "bench-noop",
        hash,
        folder: snapshot,
        execution: "sandbox",
        script: SCRIPT,
        language: "python",
        arguments: {},
        limits: { timeoutMs: 30_000, maxOutputBytes: 65_536 },
        network: "none",
        allowedDomains: [],
        snapshot: { folder: snapshot, hash, reused: true },
      });
      const elapsed = performance.now() - started;
      if (result.status !== "ok")
        throw new Error(`sandbox run: ${result.status} ${result.message ?? result.stderr}`);
      return elapsed;
    };
    // The data folder is 0700 (the sandbox reaches it through its root-only portal); bare bwrap,
    // as 65534, gets a copy of the same files in an open folder, as bench/sandbox.mjs does.
    const open = join(root, "open-snapshot");
    cpSync(snapshot, open, { recursive: true });
    chmodSync(join(open, "scripts"), 0o555);
    chmodSync(open, 0o555);
    const bareArgv = bareBwrapArgv({
      isRoot,
      snapshot: open,
      command: ["/usr/bin/python3", "-B", `/skill/${SCRIPT}`],
    });
    const bareBwrap = () => timedSpawn(bareArgv);

    log("queue-redis: starting one worker for the round trip");
    const single = await startCliWorker({ config, data, url: redis.url, name: "bench-1" });
    const trip = await runRotatedRounds({
      name: "queue-redis round trip",
      rounds,
      log,
      contestants: [
        { id: "queue", label: "skillgate queue (submit → answer)", run: roundTrip },
        { id: "bullmq", label: "bare BullMQ job round trip", run: bareBull },
        { id: "empty", label: "skillgate queue, no run (handler answers at once)", run: emptyTrip },
        { id: "sandbox", label: "skillgate sandbox run (no queue)", run: sandboxRun },
        { id: "bwrap", label: "bare bwrap", run: bareBwrap },
      ],
    });
    await single.stop();
    const byId = Object.fromEntries(trip.map((row) => [row.id, row.median]));
    const floor = byId.bullmq + byId.sandbox;
    const bareFloor = byId.bullmq + byId.bwrap;
    const ratio = byId.queue / floor;

    const throughput = [];
    for (const workers of [1, 2, 4]) {
      log(`queue-redis: throughput with ${workers} worker(s)`);
      const started = await Promise.all(
        Array.from({ length: workers }, (_, index) =>
          startCliWorker({ config, data, url: redis.url, name: `bench-t${workers}-${index}` }),
        ),
      );
      await roundTrip();
      const queuedStart = performance.now();
      const batch = Array.from({ length: runs }, request);
      for (const queued of batch) await client.submit(queued);
      const answers = await Promise.all(batch.map((queued) => client.waitFor(queued.requestId)));
      const queuedMs = performance.now() - queuedStart;
      const failed = answers.filter((answer) => answer.status !== "ok");
      if (failed.length > 0)
        throw new Error(`${failed.length} queued runs did not end ok: ${failed[0].status}`);
      await Promise.all(started.map((worker) => worker.stop()));
      let left = runs;
      const bareStart = performance.now();
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (left > 0) {
            left -= 1;
            await bareBwrap();
          }
        }),
      );
      const bareMs = performance.now() - bareStart;
      throughput.push({
        workers,
        queuedPerSecond: (runs * 1000) / queuedMs,
        barePerSecond: (runs * 1000) / bareMs,
      });
    }
    return {
      rounds,
      runs,
      trip,
      floor,
      bareFloor,
      ratio,
      met: ratio <= QUEUE_REDIS_TARGET.limit,
      throughput,
    };
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    redis.stop();
    // Read-only snapshots inside: removeTree makes folders writable as it goes.
    const { removeTree } = await distImport("core", "remove-tree.js");
    removeTree(root);
  }
}

/** The results as Markdown. */
export function formatQueueRedisResults(result) {
  const byId = Object.fromEntries(result.trip.map((row) => [row.id, row.median]));
  return [
    `## Worker pool: Redis backend (${result.rounds} rounds, medians)`,
    "",
    "| round trip of a no-op Python script | median | min | x (bare BullMQ + sandbox run) |",
    "| --- | --- | --- | --- |",
    ...resultRows(result.trip, result.floor),
    "",
    `- skillgate queue / (bare BullMQ + skillgate sandbox run): **${result.ratio.toFixed(2)}x** ` +
      `(${byId.queue.toFixed(1)} ms against ${result.floor.toFixed(1)} ms): ` +
      `${result.met ? "PASS" : "MISS"} (${QUEUE_REDIS_TARGET.label})`,
    `- skillgate queue / (bare BullMQ + bare bwrap): ${(byId.queue / result.bareFloor).toFixed(2)}x`,
    `- the backend alone (no run) / bare BullMQ: ${(byId.empty / byId.bullmq).toFixed(2)}x ` +
      `(${byId.empty.toFixed(1)} ms against ${byId.bullmq.toFixed(1)} ms)`,
    "",
    `| workers (concurrency 1 each), ${result.runs} no-op runs | skillgate queue | bare bwrap | ratio |`,
    "| --- | --- | --- | --- |",
    ...result.throughput.map(
      (row) =>
        `| ${row.workers} | ${row.queuedPerSecond.toFixed(1)} runs/s | ${row.barePerSecond.toFixed(1)} runs/s | ${(row.queuedPerSecond / row.barePerSecond).toFixed(2)} |`,
    ),
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [rounds, runs] = process.argv.slice(2).map(Number);
  const result = await runQueueRedisBenchmark({
    rounds: rounds || 30,
    runs: runs || 60,
    log: (message) => console.error(`bench: ${message}`),
  });
  console.log(formatQueueRedisResults(result));
}
