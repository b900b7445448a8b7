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
 * the read-only mount and for the writable one with its walks. Rounds rotate the order with
 * 30 ms of idle time after each run; figures are medians with minimums.
 * `npm run -s build && node bench/workspace.mjs [rounds]`.
 */

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { rootLinks, timedSpawn } from "./sandbox.mjs";
import { median } from "./stats.mjs";

const PAUSE_MS = 30;
const FOLDERS = 20;
const FILES_PER_FOLDER = 50;

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

/** Runs the benchmark; throws when any run fails. */
export async function runWorkspaceBenchmark({ rounds = 30, log = () => undefined } = {}) {
  const dist = distFolder();
  const sandbox = await import(pathToFileURL(join(dist, "runners", "sandbox", "index.js")).href);
  const changes = await import(pathToFileURL(join(dist, "runners", "workspace", "changes.js")).href);
  const isRoot = process.getuid?.() === 0;
  const fixtures = makeFixtures();
  const bareArgv = (workspace) => [
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
    fixtures.snapshot,
    "/skill",
    ...(workspace
      ? ["--ro-bind", fixtures.project, fixtures.project, "--chdir", fixtures.project]
      : ["--chdir", "/tmp"]),
    "--",
    "/usr/bin/python3",
    "-B",
    "/skill/scripts/noop.py",
  ];
  const pool = new sandbox.SandboxPool();
  const skillgate = (access, walk) => async () => {
    const started = performance.now();
    const before = walk ? changes.scanWorkspace(fixtures.project) : undefined;
    const result = await sandbox.runInSandbox({
      snapshotFolder: fixtures.snapshot,
      script: "scripts/noop.py",
      command: ["/usr/bin/python3", "-B"],
      interpreterMounts: [],
      argumentsJson: "{}",
      limits: { timeoutMs: 30_000, maxOutputBytes: 65_536 },
      network: { mode: "none" },
      pool,
      ...(access !== undefined
        ? { workspace: { path: fixtures.project, source: fixtures.project, access, readOnlyFiles: [] } }
        : {}),
    });
    if (before !== undefined) changes.compareScans(before, changes.scanWorkspace(fixtures.project));
    const elapsed = performance.now() - started;
    if (result.status !== "ok")
      throw new Error(`skillgate ${access}: ${result.status} ${result.message ?? result.stderr}`);
    return elapsed;
  };
  const as = isRoot ? " (as 65534, setpriv)" : "";
  const contestants = [
    {
      id: "bare-workspace",
      label: `bare bwrap, workspace bound${as}`,
      run: () => timedSpawn(bareArgv(true)),
    },
    { id: "bare-today", label: `bare bwrap, no workspace${as}`, run: () => timedSpawn(bareArgv(false)) },
    { id: "read", label: "skillgate, read-only workspace", run: skillgate("read", false) },
    { id: "write", label: "skillgate, writable workspace and its two walks", run: skillgate("write", true) },
    { id: "today", label: "skillgate today (no workspace)", run: skillgate(undefined, false) },
  ];
  try {
    for (const contestant of contestants) await contestant.run();
    const samples = Object.fromEntries(contestants.map((contestant) => [contestant.id, []]));
    for (let round = 0; round < rounds; round += 1) {
      const order = contestants.map((_, index) => contestants[(index + round) % contestants.length]);
      for (const contestant of order) {
        samples[contestant.id].push(await contestant.run());
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      if ((round + 1) % 10 === 0) log(`workspace: round ${round + 1}/${rounds}`);
    }
    const results = contestants.map((contestant) => ({
      id: contestant.id,
      label: contestant.label,
      median: median(samples[contestant.id]),
      min: Math.min(...samples[contestant.id]),
    }));
    const of = (id) => results.find((result) => result.id === id)?.median ?? Number.NaN;
    const bare = of("bare-workspace");
    return {
      rounds,
      isRoot,
      results,
      readAdded: (of("read") - of("today")) / bare,
      writeAdded: (of("write") - of("today")) / bare,
      bareAdded: (of("bare-workspace") - of("bare-today")) / bare,
    };
  } finally {
    await pool.close();
    rmSync(fixtures.parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** The results as a Markdown table with the target's verdict. */
export function formatWorkspaceResults(benchmark) {
  const bare = benchmark.results.find((row) => row.id === "bare-workspace")?.median ?? Number.NaN;
  const verdict = (added) =>
    `${added <= WORKSPACE_TARGET.limit ? "PASS" : "MISS"} (${(added * 100).toFixed(1)} %)`;
  return [
    `## Workspace (${benchmark.rounds} rounds; ${FOLDERS * FILES_PER_FOLDER} files; ${benchmark.isRoot ? "as root" : "as a user"})`,
    "",
    "| contestant | median | min | vs bare bwrap, workspace bound |",
    "| --- | --- | --- | --- |",
    ...benchmark.results.map(
      (row) =>
        `| ${row.label} | ${row.median.toFixed(1)} ms | ${row.min.toFixed(1)} ms | ${(row.median / bare).toFixed(2)} |`,
    ),
    "",
    `the bind adds ${(benchmark.bareAdded * 100).toFixed(1)} % to a bare bwrap run`,
    `${WORKSPACE_TARGET.label}: read-only ${verdict(benchmark.readAdded)}; writable with its walks ${verdict(benchmark.writeAdded)}`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  const benchmark = await runWorkspaceBenchmark({ rounds, log: (line) => console.error(line) });
  console.log(formatWorkspaceResults(benchmark));
}
