import type { Logger } from "../observe/logger.js";
import { startQueueWorker, wantsInProcessWorker } from "../queue/queue-setup.js";
import type { RunningWorker } from "../queue/worker/worker.js";
import { domainProxyProvider, SandboxRunner } from "../runners/sandbox/index.js";
import type { Skillgate } from "./skillgate.js";

/** The worker pool's part of a long-running controller (`skillgate serve`). */
export interface QueueService {
  /** The in-process worker, when one was started. */
  readonly worker: RunningWorker | undefined;
  /** Stops the in-process worker gracefully and the collection of gone callers' answers. */
  close(): Promise<void>;
}

/**
 * What `skillgate serve` does for the worker pool at its start (docs/queue.md): collects the
 * answers of requests whose callers are gone (a restart while jobs ran), for the audit, and
 * starts one worker in its own process per `queue.workers.in_process` (`auto`: only when the
 * queue shows no live worker). A queue that cannot be reached is logged, not fatal: queue-mode
 * calls are then refused with a `HOST:` message.
 */
export async function startQueueService(skillgate: Skillgate, logger: Logger): Promise<QueueService> {
  const config = () => skillgate.catalog.config;
  const data = skillgate.catalog.folders.data;
  const collected = skillgate.queue.runner?.collectGoneCallers() ?? 0;
  if (collected > 0)
    logger.info("collecting answers of queued runs whose callers are gone", { count: collected });
  let worker: RunningWorker | undefined;
  let sandbox: SandboxRunner | undefined;
  try {
    const client = await skillgate.queue.client();
    if (await wantsInProcessWorker(config().queue, client)) {
      sandbox = new SandboxRunner({
        languages: { configuredInterpreters: () => config().runners.interpreters, protectedFolders: [data] },
        proxy: domainProxyProvider(),
      });
      worker = await startQueueWorker({
        dataFolder: data,
        config: () => config().queue,
        runner: sandbox,
        name: `serve-${process.pid}`,
      });
    }
  } catch (error) {
    logger.warn("the worker pool's queue is not available", {
      error: error instanceof Error ? error.name : "error",
    });
  }
  return {
    worker,
    close: async () => {
      skillgate.queue.runner?.close();
      await worker?.stop().catch((error: unknown) => {
        // Redis gone for good while it stopped: the worker left without it (bounded), said here.
        logger.warn("the in-process worker stopped without its queue", {
          error: error instanceof Error ? error.message : String(error),
        });
      });
      await sandbox?.close();
    },
  };
}
