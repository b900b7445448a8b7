/**
 * Shared by the issue 13 sandbox benchmarks (bench/mounts.mjs, bench/workspace.mjs): the bare
 * bubblewrap command line they measure skillgate against, a timed `runInSandbox`, and the
 * rotated rounds with their medians.
 */

import { performance } from "node:perf_hooks";
import { rootLinks } from "./sandbox.mjs";
import { median } from "./stats.mjs";

const PAUSE_MS = 30;

/**
 * A bare bwrap run of `command` with `/usr`, the loader's links, `/proc`, `/dev`, a `/tmp` tmpfs
 * and the snapshot at `/skill`, plus `extra` bubblewrap arguments (mounts, `--setenv`); in
 * `chdir` (default `/tmp`). As root it starts after `setpriv` drops to 65534, the identity
 * skillgate's sandbox has.
 */
export function bareBwrapArgv({ isRoot, snapshot, command, extra = [], chdir = "/tmp" }) {
  return [
    ...(isRoot
      ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--"]
      : []),
    "bwrap",
    "--unshare-all",
    "--die-with-parent",
    "--ro-bind",
    "/usr",
    "/usr",
    ...rootLinks(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    snapshot,
    "/skill",
    ...extra,
    "--chdir",
    chdir,
    "--",
    ...command,
  ];
}

/**
 * A contestant that times `runInSandbox` of the built package through `pool`, as `SandboxRunner`
 * runs it, with `request` added to a no-network, `{}`-arguments run; `around` (optional) wraps
 * the run with work the router does in the same timing (the workspace's walks). Throws when the
 * script does not end `ok`.
 */
export function timedSandboxRun(sandbox, pool, snapshotFolder, request, around) {
  return async () => {
    const started = performance.now();
    const before = around?.before();
    const result = await sandbox.runInSandbox({
      snapshotFolder,
      interpreterMounts: [],
      argumentsJson: "{}",
      limits: { timeoutMs: 30_000, maxOutputBytes: 65_536 },
      network: { mode: "none" },
      pool,
      ...request,
    });
    around?.after(before);
    const elapsed = performance.now() - started;
    if (result.status !== "ok")
      throw new Error(`skillgate ${request.script}: ${result.status} ${result.message ?? result.stderr}`);
    return elapsed;
  };
}

/**
 * Runs each contestant once untimed, then `rounds` rounds that rotate the order with 30 ms of
 * idle time after each run. Returns per contestant its median and minimum (ms).
 */
export async function runRotatedRounds({ name, contestants, rounds, log }) {
  for (const contestant of contestants) await contestant.run();
  const samples = Object.fromEntries(contestants.map((contestant) => [contestant.id, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = contestants.map((_, index) => contestants[(index + round) % contestants.length]);
    for (const contestant of order) {
      samples[contestant.id].push(await contestant.run());
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    if ((round + 1) % 10 === 0) log(`${name}: round ${round + 1}/${rounds}`);
  }
  return contestants.map((contestant) => ({
    id: contestant.id,
    label: contestant.label,
    median: median(samples[contestant.id]),
    min: Math.min(...samples[contestant.id]),
  }));
}

/** Markdown rows of `results`, each with its median's ratio to `reference` (ms). */
export function resultRows(results, reference) {
  return results.map(
    (row) =>
      `| ${row.label} | ${row.median.toFixed(1)} ms | ${row.min.toFixed(1)} ms | ${(row.median / reference).toFixed(2)} |`,
  );
}
