/**
 * `node --import tsx approval-queue-taker.ts <data> <requests.json>`: a separate process
 * that races others to take answers from the approval queue of `<data>`. Prints `ready`,
 * waits for a line on stdin (so several children start together), then tries `take` for
 * each request in the file and prints the answers as one JSON array (`null` for none).
 */
import { readFileSync } from "node:fs";
import { ApprovalQueue } from "../../src/policy/approval-queue.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";

const [data, requestsFile] = process.argv.slice(2);
if (data === undefined || requestsFile === undefined) {
  process.stderr.write("usage: approval-queue-taker.ts <data> <requests.json>\n");
  process.exit(2);
}
const requests = JSON.parse(readFileSync(requestsFile, "utf8")) as ApprovalRequest[];
const queue = ApprovalQueue.open({ dataFolder: data });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => {
  process.stdin.once("data", () => resolve());
  process.stdin.once("end", () => resolve());
});
const answers = requests.map((request) => queue.take(request) ?? null);
process.stdout.write(`${JSON.stringify(answers)}\n`);
