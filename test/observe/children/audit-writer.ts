/**
 * `node --import tsx audit-writer.ts <data> <tag> <count> <maxBytes>`: appends `count`
 * events to the audit log of `<data>` as fast as it can, each with request id
 * `<tag>-<n>` and a long error kind of `<tag>`'s first letter, so two writers' lines are
 * easy to tell apart and a torn or interleaved line cannot parse. Waits at the barrier first (see run-child.ts); prints `done` at the end;
 * a write failure exits 1.
 */
import { AuditLog } from "../../../src/observe/audit-log.js";
import { waitForGo } from "./run-child.js";

const [data, tag, count, maxBytes] = process.argv.slice(2);
if (data === undefined || tag === undefined || count === undefined || maxBytes === undefined) {
  process.stderr.write("usage: audit-writer.ts <data> <tag> <count> <maxBytes>\n");
  process.exit(2);
}
const log = new AuditLog({
  dataFolder: data,
  maxBytes: Number(maxBytes),
  onError: (error) => {
    process.stderr.write(`audit write failed: ${String(error)}\n`);
    process.exit(1);
  },
});
await waitForGo();
const filler = (tag[0] ?? "x").repeat(200);
for (let index = 0; index < Number(count); index += 1) {
  log.record({
    type: "tool-call-finished",
    time: new Date().toISOString(),
    requestId: `${tag}-${index}`,
    scope: { kind: "job", id: tag },
    tool: "run_skill_script",
    tier: "change",
    skill: "writer",
    status: "ok",
    latencyMs: index,
    errorKind: filler,
  });
}
process.stdout.write("done\n");
