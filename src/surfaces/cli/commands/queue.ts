import { resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../../../config/config.js";
import { resolveFolders } from "../../../core/folders.js";
import type { QueueStatus } from "../../../queue/contract.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, printJson, table } from "../output.js";

/**
 * `skillgate queue status [--json]`: the worker pool's counts and live workers;
 * `skillgate queue seal-key [--export FILE]`: where the controller's seal key lives, or a copy
 * of it for a worker on another host. docs/queue.md.
 */
export function registerQueue(program: Command, output: CliOutput): void {
  const queue = program.command("queue").description("the worker pool for queue-mode skills");
  queue
    .command("status")
    .description("show waiting, active, done, interrupted and failed counts, and the live workers")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const folders = resolveFolders(skillgateOptions(command));
      const config = loadConfig(folders.config);
      const { queueClientOf } = await import("../../../queue/queue-setup.js");
      const client = await queueClientOf(folders.data, () => config.queue).open();
      try {
        const status = await client.status();
        if (options.json === true) printJson(output, status);
        else output.out(statusText(output, status));
      } finally {
        await client.close();
      }
    });
  queue
    .command("seal-key")
    .description(
      "print where the controller's queue seal key lives (made if missing), or --export a copy for a worker host",
    )
    .option("--export <file>", "write a copy (0600) to this new file, to carry to a worker host")
    .addHelpText(
      "after",
      "\nWorkers on other hosts check every request against this key: copy it to each (readable only by\n" +
        "the worker's account) and start them with --seal-key FILE. Anyone with the key can seal requests\n" +
        'workers will run: treat it as a password. See docs/queue.md, "Scaling out".\n',
    )
    .action(async (options: { export?: string }, command: Command) => {
      const folders = resolveFolders(skillgateOptions(command));
      const { queueLayout } = await import("../../../queue/local/layout.js");
      const { exportSealKey, RequestSeal } = await import("../../../queue/local/request-seal.js");
      const keyFile = queueLayout(folders.data).sealKey;
      RequestSeal.open(keyFile);
      if (options.export === undefined) {
        output.out(`${keyFile}\n`);
        return;
      }
      const target = resolve(options.export);
      exportSealKey(keyFile, target);
      output.out(
        `skillgate: wrote a copy of ${keyFile} to ${target} (0600); start the worker with --seal-key ${target}\n`,
      );
    });
}

/** The status as the terminal shows it. */
export function statusText(output: CliOutput, status: QueueStatus): string {
  const counts = status.counts;
  const lines = [
    `backend: ${status.backend}   capacity: ${status.capacity}`,
    `waiting ${counts.waiting}   active ${counts.active}   done ${counts.done}   interrupted ${counts.interrupted}   failed ${counts.failed}`,
  ];
  if (status.workers.length === 0) lines.push("workers: none live (start one with skillgate worker)");
  else
    lines.push(
      table(
        output,
        ["WORKER", "HOST", "RUNNING", "LAST SEEN", "STATE"],
        status.workers.map((worker) => [
          worker.name,
          worker.host,
          `${worker.running}/${worker.concurrency}`,
          worker.lastSeen,
          worker.stopping ? "stopping" : "taking requests",
        ]),
      ),
    );
  return `${lines.join("\n")}\n`;
}
