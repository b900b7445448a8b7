/**
 * A controller process for the Redis restart-of-the-controller test: `node --import tsx
 * test/queue/redis/redis-controller-process.ts URL DATA SKILL HASH SCRIPT`. Submits one run
 * through the QueueRunner on the Redis backend (the data folder's seal key), prints
 * `submitted`, and waits for its answer; the test kills it meanwhile, so its caller is gone
 * when the answer comes.
 */

import { writeSync } from "node:fs";
import { join } from "node:path";
import type { QueueClient } from "../../../src/queue/contract.js";
import { queueLayout } from "../../../src/queue/local/layout.js";
import { RequestSeal } from "../../../src/queue/local/request-seal.js";
import { QueueRunner } from "../../../src/queue/queue-runner.js";
import { RedisQueueClient } from "../../../src/queue/redis/redis-queue-client.js";
import { DEFAULT_RUN_LIMITS } from "../../../src/runners/contract.js";

const [url, data, skill, hash, script] = process.argv.slice(2);
if (
  url === undefined ||
  data === undefined ||
  skill === undefined ||
  hash === undefined ||
  script === undefined
)
  throw new Error("usage: URL DATA SKILL HASH SCRIPT");
const client = new RedisQueueClient({ url, seal: RequestSeal.open(queueLayout(data).sealKey) });
const told: QueueClient = {
  submit: async (request) => {
    await client.submit(request);
    // Told once the request and its caller record exist.
    setTimeout(() => writeSync(1, "submitted\n"), 50);
  },
  waitFor: (id, signal, options) => client.waitFor(id, signal, options),
  status: () => client.status(),
  close: () => client.close(),
};
const runner = new QueueRunner({ client: async () => told, dataFolder: data });
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
