/**
 * A controller process for the queue's restart test: `node --import tsx
 * test/helpers/queue-controller-process.ts DATA SKILL HASH SCRIPT`. Submits one run through the
 * QueueRunner (local backend), prints `submitted`, and waits for its answer; the test kills it
 * meanwhile, so its caller is gone when the answer comes.
 */

import { writeSync } from "node:fs";
import { join } from "node:path";
import { LocalQueueClient } from "../../src/queue/local/local-queue-client.js";
import { QueueRunner } from "../../src/queue/queue-runner.js";
import { DEFAULT_RUN_LIMITS } from "../../src/runners/contract.js";

const [data, skill, hash, script] = process.argv.slice(2);
if (data === undefined || skill === undefined || hash === undefined || script === undefined)
  throw new Error("usage: DATA SKILL HASH SCRIPT");
const client = new LocalQueueClient({ dataFolder: data, capacity: 100, heartbeatMs: 500, pollMs: 50 });
const runner = new QueueRunner({
  client: async () => ({
    ...client,
    submit: async (request) => {
      await client.submit(request);
      // Told once the request and its caller record exist.
      setTimeout(() => writeSync(1, "submitted\n"), 50);
    },
    waitFor: (id, signal, options) => client.waitFor(id, signal, options),
    status: () => client.status(),
    close: () => client.close(),
  }),
  dataFolder: data,
});
await runner.run({
  skill,
  hash,
  folder: join(data, "runs", "snapshots", hash),
  execution: "queue",
  script,
  language: "node",
  arguments: {},
  limits: DEFAULT_RUN_LIMITS,
  call: { requestId: "call-1", scope: { kind: "chat", id: "chat-1" } },
});
