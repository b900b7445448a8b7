import { type Command, InvalidArgumentError as CommanderArgumentError } from "commander";
import { loadConfig } from "../../../config/config.js";
import type { QueueConfig } from "../../../config/queue-config.js";
import { resolveFolders } from "../../../core/folders.js";
import { skillgateOptions } from "../context.js";
import type { CliOutput } from "../output.js";

interface WorkerFlags {
  readonly redis?: string;
  readonly concurrency?: number;
  readonly name?: string;
  readonly controller?: string;
  readonly enrol?: string;
  readonly sealKey?: string;
}

/**
 * `skillgate worker [--redis URL] [--concurrency N] [--name NAME] [--controller URL [--enrol TOKEN]]
 * [--seal-key FILE]`: a worker of the pool for
 * `skillgate.execution: queue` skills, against the data folder's local queue unless `--redis`
 * (or `queue.backend: redis`) says otherwise, until SIGTERM or SIGINT: then it takes no new
 * requests and finishes the running ones. docs/queue.md.
 */
export function registerWorker(program: Command, output: CliOutput): void {
  program
    .command("worker")
    .description("run a worker of the pool for queue-mode skills (the data folder's queue by default)")
    .option("--redis <url>", "work for the BullMQ queue on this Redis instead of the local queue")
    .option("--concurrency <number>", "runs at once (default queue.concurrency: the number of cores)", count)
    .option("--name <name>", "the worker's name in answers, the status and the audit (default HOST-PID)")
    .option(
      "--controller <url>",
      "a worker on another host: get skill files from this controller (SkillSync)",
    )
    .option(
      "--enrol <token>",
      "enrol with the controller once, with the token of `skillgate nodes add NAME --worker`",
    )
    .option(
      "--seal-key <file>",
      "the controller's queue/seal.key, copied to this host (default the data folder's)",
    )
    .addHelpText(
      "after",
      "\nEach script runs in the sandbox from the skill's verified copy (hashed again before each run),\n" +
        "with no workspace and no network (or only its allowed domains through the filtering proxy).\n" +
        "SIGTERM or SIGINT: no new requests; running ones finish and are answered. With --redis, a Redis\n" +
        "unreachable for 10 s during the stop: the worker leaves without it (exit 1). See docs/queue.md.\n",
    )
    .action(async (flags: WorkerFlags, command: Command) => {
      const folders = resolveFolders(skillgateOptions(command));
      const loaded = loadConfig(folders.config);
      const queue: QueueConfig =
        flags.redis !== undefined
          ? { ...loaded.queue, backend: "redis", redis: { url: flags.redis } }
          : loaded.queue;
      // The sandbox and the worker load only when this command runs.
      const { startQueueWorker } = await import("../../../queue/queue-setup.js");
      const { SandboxRunner, domainProxyProvider } = await import("../../../runners/sandbox/index.js");
      const runner = new SandboxRunner({
        languages: {
          configuredInterpreters: () => loaded.runners.interpreters,
          protectedFolders: [folders.data],
        },
        proxy: domainProxyProvider(),
      });
      // A worker on another host: skill files from the controller over SkillSync.
      const remote =
        flags.controller !== undefined
          ? await (await import("../../../queue/worker/remote-skill-files.js")).openRemoteSkillFiles({
              dataFolder: folders.data,
              controllerUrl: flags.controller,
              ...(flags.name !== undefined ? { name: flags.name } : {}),
              ...(flags.enrol !== undefined ? { enrolToken: flags.enrol } : {}),
            })
          : undefined;
      const name = flags.name ?? remote?.nodeName;
      const worker = await startQueueWorker({
        dataFolder: folders.data,
        config: () => queue,
        runner,
        ...(name !== undefined ? { name } : {}),
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        ...(remote !== undefined ? { skillFiles: remote.files } : {}),
        ...(flags.sealKey !== undefined ? { redis: { sealKeyFile: flags.sealKey } } : {}),
      }).catch(async (error: unknown) => {
        // Not started (Redis not reachable, no seal key): nothing of it may keep the process up.
        remote?.files.stop();
        await runner.close();
        throw error;
      });
      output.out(
        `skillgate: worker ${worker.name} takes requests from the ${queue.backend} queue (${flags.concurrency ?? queue.concurrency} at once)\n`,
      );
      const signal = await new Promise<string>((resolve) => {
        process.once("SIGINT", () => resolve("SIGINT"));
        process.once("SIGTERM", () => resolve("SIGTERM"));
      });
      output.err(`skillgate: ${signal}: taking no new requests, finishing the running ones\n`);
      let left: Error | undefined;
      try {
        await worker.stop();
      } catch (error) {
        // Redis gone for good (bounded wait): leave without it, saying what becomes of the runs.
        left = error instanceof Error ? error : new Error(String(error));
      }
      remote?.files.stop();
      await runner.close();
      if (left === undefined) {
        output.err("skillgate: worker stopped\n");
        return;
      }
      output.err(`skillgate: worker stopped without its queue: ${left.message}\n`);
      // Connections still trying to reach the queue would keep the process alive.
      process.exit(1);
    });
}

function count(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1024)
    throw new CommanderArgumentError(`--concurrency takes a whole number from 1 to 1024 (got "${value}").`);
  return Number(value);
}
