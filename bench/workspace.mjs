/**
 * The workspace benchmark (issue 13): what a run's workspace costs. A no-op Python script
 * (`/usr/bin/python3`) runs with a project of 1,000 files in 20 folders as its workspace:
 *
 * - bare bwrap: `/usr`, the loader's links, `/proc`, `/dev`, a `/tmp` tmpfs, the snapshot at
 *   `/skill`, with and without the project bound read-only at its own path and entered
 *   (`--chdir`); as root after `setpriv` drops to 65534 (the identity skillgate's sandbox has).
 * - skillgate: `runInSandbox` through a `SandboxPool`, as `SandboxRunner` runs it: with no
 *   workspace (today's run), with a read-only workspace, and with a writable one plus the two
 *   walks of the before/after comparison the router makes for it (`scanWorkspace`,
 *   `compareScans`).
 *
 * The target (issue 13): the workspace adds at most 10 % over bare bwrap, i.e. (skillgate with
 * the workspace - skillgate today) / bare bwrap with the workspace <= 0.10 at the median, for
 * the read-only mount and for the writable one with its walks. The walks are also timed alone
 * (the median of the before walk, the after walk and the comparison in skillgate's process).
 * Rounds rotate the order with 30 ms of idle time after each run (bench/sandbox-runs.mjs);
 * figures are medians with minimums. `node bench/run.mjs --only workspace` runs it too.
 * `npm run -s build && node bench/workspace.mjs [rounds]`.
 */

import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { timedSpawn } from "./sandbox.mjs";
import { bareBwrapArgv, resultRows, runRotatedRounds, timedSandboxRun } from "./sandbox-runs.mjs";
import { median } from "./stats.mjs";

const FOLDERS = 20;
const FILES_PER_FOLDER = 50;
const WALK_SAMPLES = 40;

/** The target from the issue: the workspace adds at most 10 % over a bare bwrap run. */
export const WORKSPACE_TARGET = { label: "the workspace adds <= 10 % over bare bwrap (median)", limit: 0.1 };

function makeFixtures() {
  const parent = mkdtempSync(join(tmpdir(), "skillgate-bench-workspace-"));
  chmodSync(parent, 0o755);
  const project = join(parent, "project");
  for (let folder = 0; folder < FOLDERS; folder += 1) {
    mkdirSync(join(project, `folder-${folder}`), { recursive: true });
    for (let file = 0; file < FILES_PER_FOLDER; file += 1)
      writeFileSync(join(project, `folder-${folder}`, `file-${file}.txt`), `${folder}/${file}\n`);
  }
  const snapshot = join(parent, "snapshot");
  mkdirSync(join(snapshot, "scripts"), { recursive: true });
  writeFileSync(join(snapshot, "scripts", "noop.py"), "pass\n", { mode: 0o444 });
  chmodSync(join(snapshot, "scripts"), 0o555);
  chmodSync(snapshot, 0o555);
  return { parent, project, snapshot };
}

/** Median and minimum (ms) of `work` over WALK_SAMPLES calls, in this process. */
function timeInProcess(work) {
  const samples = [];
  for (let sample = 0; sample < WALK_SAMPLES; sample += 1) {
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  return { median: median(samples), min: Math.min(...samples) };
}

/** The floor of a walk: every folder listed and, with `stat`, every name `lstat`ed (bigint), nothing kept. */
function bareWalk(folder, stat) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (stat) lstatSync(path, { bigint: true });
    if (entry.isDirectory()) bareWalk(path, stat);
  }
}

/**
 * The two walks and their comparison alone, and two floors for the same two walks: listing the
 * folders and `lstat` of each name (what the walks' system calls cost), and listing only
 * (names and kinds from `readdir`, what a walk without `lstat` would cost).
 */
function timeWalks(changes, project) {
  return {
    walks: timeInProcess(() =>
      changes.compareScans(changes.scanWorkspace(project), changes.scanWorkspace(project)),
    ),
    lstatFloor: timeInProcess(() => {
      bareWalk(project, true);
      bareWalk(project, true);
    }),
    listFloor: timeInProcess(() => {
      bareWalk(project, false);
      bareWalk(project, false);
    }),
  };
}

/** Runs the benchmark; throws when any run fails. */
export async function runWorkspaceBenchmark({ rounds = 30, log = () => undefined } = {}) {
  const dist = distFolder();
  const sandbox = await import(pathToFileURL(join(dist, "runners", "sandbox", "index.js")).href);
  const changes = await import(pathToFileURL(join(dist, "runners", "workspace", "changes.js")).href);
  const isRoot = process.getuid?.() === 0;
  const fixtures = makeFixtures();
  const { project, snapshot } = fixtures;
  const command = ["/usr/bin/python3", "-B", "/skill/scripts/noop.py"];
  const bound = { extra: ["--ro-bind", project, project], chdir: project };
  const pool = new sandbox.SandboxPool();
  const walks = {
    before: () => changes.scanWorkspace(project),
    after: (before) => changes.compareScans(before, changes.scanWorkspace(project)),
  };
  const skillgate = (access, around) =>
    timedSandboxRun(
      sandbox,
      pool,
      snapshot,
      {
        script: "scripts/noop.py",
        command: ["/usr/bin/python3", "-B"],
        ...(access !== undefined
          ? { workspace: { path: project, source: project, access, readOnlyFiles: [] } }
          : {}),
      },
      around,
    );
  const as = isRoot ? " (as 65534, setpriv)" : "";
  const contestants = [
    {
      id: "bare-workspace",
      label: `bare bwrap, workspace bound${as}`,
      run: () => timedSpawn(bareBwrapArgv({ isRoot, snapshot, command, ...bound })),
    },
    {
      id: "bare-today",
      label: `bare bwrap, no workspace${as}`,
      run: () => timedSpawn(bareBwrapArgv({ isRoot, snapshot, command })),
    },
    { id: "read", label: "skillgate, read-only workspace", run: skillgate("read") },
    { id: "write-mount", label: "skillgate, writable workspace, no walks", run: skillgate("write") },
    { id: "write", label: "skillgate, writable workspace and its two walks", run: skillgate("write", walks) },
    { id: "today", label: "skillgate today (no workspace)", run: skillgate(undefined) },
  ];
  try {
    const results = await runRotatedRounds({ name: "workspace", contestants, rounds, log });
    const walkTime = timeWalks(changes, project);
    const of = (id) => results.find((result) => result.id === id)?.median ?? Number.NaN;
    const bare = of("bare-workspace");
    return {
      rounds,
      isRoot,
      files: FOLDERS * FILES_PER_FOLDER,
      results,
      walks: walkTime,
      readAdded: (of("read") - of("today")) / bare,
      writeMountAdded: (of("write-mount") - of("today")) / bare,
      writeAdded: (of("write") - of("today")) / bare,
      bareAdded: (of("bare-workspace") - of("bare-today")) / bare,
      bare,
    };
  } finally {
    await pool.close();
    rmSync(fixtures.parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** The results as a Markdown table with the target's verdict. */
export function formatWorkspaceResults(benchmark) {
  const verdict = (added) =>
    `${added <= WORKSPACE_TARGET.limit ? "PASS" : "MISS"} (${(added * 100).toFixed(1)} %)`;
  const perThousand = (time) => `${((time.median * 1000) / benchmark.files).toFixed(2)} ms`;
  const walk = (label, time) =>
    `${label}: ${time.median.toFixed(2)} ms median (${time.min.toFixed(2)} ms min), ${perThousand(time)} per 1,000 files, ${((time.median / benchmark.bare) * 100).toFixed(1)} % of bare bwrap`;
  return [
    `## Workspace (${benchmark.rounds} rounds; ${benchmark.files} files; ${benchmark.isRoot ? "as root" : "as a user"})`,
    "",
    "| contestant | median | min | vs bare bwrap, workspace bound |",
    "| --- | --- | --- | --- |",
    ...resultRows(benchmark.results, benchmark.bare),
    "",
    `the bind adds ${(benchmark.bareAdded * 100).toFixed(1)} % to a bare bwrap run`,
    walk("the two walks and their comparison alone", benchmark.walks.walks),
    walk("floor: the same two walks' readdir and lstat only", benchmark.walks.lstatFloor),
    walk("floor: the two walks' readdir only (no lstat)", benchmark.walks.listFloor),
    `${WORKSPACE_TARGET.label}: read-only ${verdict(benchmark.readAdded)}; writable, mount only ${verdict(benchmark.writeMountAdded)}; writable with its walks ${verdict(benchmark.writeAdded)}`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  const benchmark = await runWorkspaceBenchmark({ rounds, log: (line) => console.error(`bench: ${line}`) });
  console.log(formatWorkspaceResults(benchmark));
}
