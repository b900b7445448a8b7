import type { Command } from "commander";
import { loadConfig } from "../../../config/config.js";
import { resolveFolders } from "../../../core/folders.js";
import type { QueueStatus } from "../../../queue/contract.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, printJson, table } from "../output.js";

/** `skillgate queue status [--json]`: the worker pool's counts and live workers. docs/queue.md. */
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
