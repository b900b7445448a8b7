import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { holdGroup, onProcessExit } from "../../../src/core/process-groups.js";

/**
 * A process that starts a sleeper in its own group, holds it, registers exit actions (one
 * that throws, one dropped before the end, one that writes a marker), prints the sleeper's
 * pid and exits with code 3 without stopping anything itself.
 */
const folder = process.argv[2] ?? ".";
const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
if (sleeper.pid === undefined) throw new Error("sleep did not start");
holdGroup(sleeper.pid);
onProcessExit(() => {
  throw new Error("an action that fails");
});
const dropped = onProcessExit(() => writeFileSync(join(folder, "dropped"), ""));
onProcessExit(() => writeFileSync(join(folder, "ran"), ""));
dropped();
process.stdout.write(`${sleeper.pid}\n`);
process.exit(3);
