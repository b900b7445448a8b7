/**
 * A worker process for the queue tests: `node --import tsx test/helpers/queue-chaos-worker.ts
 * --data DATA --name NAME [--concurrency N] [--heartbeat-ms MS] [--runner local|sandbox]
 * [--redis URL --lock-ms MS]`. With `--redis` it takes requests from BullMQ on that Redis (the
 * data folder's seal key, the test's short lock) instead of the data folder's file queue.
 * With `--runner local` (the at-most-once test) scripts run through the local runner with every
 * skill trusted, so a test skill can append to a file outside any sandbox and count its starts.
 * Prints `ready` once it takes requests; SIGTERM stops it gracefully.
 */
import { parseArgs } from "node:util";
import { DEFAULT_QUEUE_CONFIG } from "../../src/config/queue-config.js";
import { startQueueWorker } from "../../src/queue/queue-setup.js";
import type { Runner } from "../../src/runners/contract.js";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { SandboxRunner } from "../../src/runners/sandbox/index.js";

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    name: { type: "string" },
    concurrency: { type: "string", default: "2" },
    "heartbeat-ms": { type: "string", default: "1000" },
    runner: { type: "string", default: "local" },
    limits: { type: "string", default: "{}" },
    redis: { type: "string" },
    "lock-ms": { type: "string", default: "1500" },
  },
});
const data = values.data;
if (data === undefined || values.name === undefined) throw new Error("--data and --name are required");
const runner: Runner =
  values.runner === "sandbox"
    ? new SandboxRunner({ prestart: false })
    : new LocalRunner({ dataFolder: data, isTrusted: () => true });
const heartbeatMs = Number(values["heartbeat-ms"]);
const skills = JSON.parse(values.limits) as Record<string, { concurrency: number }>;
const worker = await startQueueWorker({
  dataFolder: data,
  name: values.name,
  concurrency: Number(values.concurrency),
  // Whole seconds in the configuration; the test's heartbeat is set on the source through this.
  config: () => ({ ...DEFAULT_QUEUE_CONFIG, heartbeatSeconds: heartbeatMs / 1000, skills }),
  runner,
  ...(values.redis !== undefined
    ? {
        redis: {
          url: values.redis,
          lockDurationMs: Number(values["lock-ms"]),
          stalledIntervalMs: Math.max(100, Math.floor(Number(values["lock-ms"]) / 3)),
        },
      }
    : {}),
});
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void worker.stop().then(() => process.exit(0));
});
