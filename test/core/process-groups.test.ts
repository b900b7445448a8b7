import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { leftByEndedProcess } from "../../src/core/process-groups.js";
import { eventually } from "../helpers/eventually.js";
import { makeTree } from "../helpers/skill-tree.js";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

/** True while `pid` runs (a zombie waiting for its parent to reap it counts as ended). */
function isRunning(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== undefined && state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

describe("onProcessExit and holdGroup", () => {
  it("kills held groups and runs the other actions when the process exits, past one that throws", async () => {
    const folder = makeTree("skillgate-exit-");
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./children/exit-with-group.ts", import.meta.url)), folder],
      { cwd: repositoryRoot, encoding: "utf8" },
    );
    expect(child.status, child.stderr).toBe(3);
    const sleeper = Number(child.stdout.trim());
    expect(sleeper).toBeGreaterThan(1);
    // SIGKILL is delivered before the exit listener returns; the kernel may take a moment to end it.
    await eventually(`the sleeper ${sleeper} ended`, () => !isRunning(sleeper));
    expect(isRunning(sleeper)).toBe(false);
    expect(existsSync(join(folder, "ran"))).toBe(true);
    expect(existsSync(join(folder, "dropped"))).toBe(false);
  });
});

describe("leftByEndedProcess", () => {
  it("is true only for a name of the prefix whose owner process has ended", () => {
    const ended = spawnSync("true").pid;
    expect(ended).toBeGreaterThan(1);
    expect(leftByEndedProcess(`skillgate-run-${ended}-ab12`, "skillgate-run-")).toBe(true);
    for (const [name, why] of [
      [`skillgate-run-${process.pid}-ab12`, "the owner lives"],
      ["skillgate-run-1-ab12", "pid 1 lives"],
      [`other-${ended}-ab12`, "another prefix"],
      ["skillgate-run-abc-ab12", "not a pid"],
      ["skillgate-run-0-ab12", "pid 0"],
      ["skillgate-run--5-ab12", "a negative pid"],
      ["skillgate-run-", "no pid at all"],
    ] as const) {
      expect(leftByEndedProcess(name, "skillgate-run-"), why).toBe(false);
    }
  });
});
