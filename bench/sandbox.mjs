/**
 * The sandbox benchmark (issue 5): a no-op Python and Node script run by skillgate's sandbox
 * (`runInSandbox` from the built package) against a bare `bwrap` invocation of the same script.
 *
 * - bare bwrap: `bwrap --unshare-all --die-with-parent`, `/usr` and the loader's links, `/proc`,
 *   `/dev`, a `/tmp` tmpfs and the snapshot at `/skill`, spawned with piped stdio, the
 *   arguments written to stdin; the least a sandbox of the same shape does. As whoever runs the
 *   benchmark (as root, bubblewrap then runs privileged).
 * - bare bwrap as 65534: the same, after `setpriv` drops root (root only): the identity
 *   skillgate's sandbox has.
 * - skillgate: `runInSandbox` with a `SandboxPool`, as `SandboxRunner` runs it (a sandbox
 *   started ahead of each run while the runner is idle; one pool per cgroup setting, as one
 *   runner has one), with the host's cgroups (auto), and with cgroups off; without a pool
 *   (every run starts its own sandbox: what a burst of concurrent runs gets beyond the one
 *   kept ahead); and, as root, with the snapshot behind a folder closed to the sandbox user
 *   (the portal).
 *
 * Rounds rotate the order, with 30 ms of untimed idle time after each run (when the pool starts
 * its next sandbox); figures are medians with minimums, ratios are ratios of medians.
 * The target (skillgate at most 1.3x bare bwrap, at the median) is reported PASS or MISS.
 * `node bench/sandbox.mjs [rounds]` runs it alone.
 */

import { spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

/** Idle time between two timed runs. */
const PAUSE_MS = 30;

/** The target from the issue: the sandbox at most 1.3x a bare bwrap run. */
export const SANDBOX_TARGET = { label: "skillgate sandbox <= 1.3x bare bwrap (median)", limit: 1.3 };

const SCRIPTS = {
  python: { script: "scripts/noop.py", source: "pass\n", command: ["/usr/bin/python3", "-B"] },
  node: { script: "scripts/noop.js", source: "\n", command: ["/usr/bin/node"] },
};

/** A snapshot as the runners make them (files 0444, folders 0555) under a parent of the given mode. */
function makeSnapshot(parentMode) {
  const parent = mkdtempSync(join(tmpdir(), "skillgate-bench-sandbox-"));
  chmodSync(parent, parentMode);
  const folder = join(parent, "snapshot");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  for (const { script, source } of Object.values(SCRIPTS))
    writeFileSync(join(folder, script), source, { mode: 0o444 });
  chmodSync(join(folder, "scripts"), 0o555);
  chmodSync(folder, 0o555);
  return { parent, folder };
}

export function rootLinks() {
  return ["/bin", "/sbin", "/lib", "/lib64"].flatMap((path) => {
    try {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) return ["--symlink", readlinkSync(path), path];
      return stats.isDirectory() ? ["--ro-bind", path, path] : [];
    } catch {
      return [];
    }
  });
}

/** Spawns argv with piped stdio, writes `{}` to stdin, resolves with the wall time once it closed (also for bench/mounts.mjs). */
export function timedSpawn(argv) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: "/usr/bin:/bin" },
    });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end("{}");
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${argv.slice(0, 3).join(" ")} exited ${code}: ${stderr.trim()}`));
    });
  });
}

/**
 * Runs the benchmark. Returns the samples per contestant and language, the ratios and
 * whether the target was met; throws when any run fails.
 */
export async function runSandboxBenchmark({ rounds = 30, concurrency = 100, log = () => undefined } = {}) {
  const sandbox = await import(pathToFileURL(join(distFolder(), "runners", "sandbox", "index.js")).href);
  const isRoot = process.getuid?.() === 0;
  const open = makeSnapshot(0o755);
  const closed = isRoot ? makeSnapshot(0o700) : undefined;
  const bare = (language, dropRoot) => {
    const { script, command } = SCRIPTS[language];
    const bwrap = [
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
      open.folder,
      "/skill",
      "--chdir",
      "/tmp",
      "--",
      ...command,
      `/skill/${script}`,
    ];
    const setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--"];
    return () => timedSpawn(dropRoot ? [...setpriv, ...bwrap] : bwrap);
  };
  // A build from before the pool (BENCH_DIST of an older commit) runs every contestant without one.
  const newPool = () => (sandbox.SandboxPool === undefined ? undefined : new sandbox.SandboxPool());
  const pools = { auto: newPool(), off: newPool() };
  const prestarted = {};
  const skillgate = (id, language, folder, cgroups, withPool) => {
    const { script, command } = SCRIPTS[language];
    prestarted[id] = 0;
    return async () => {
      const started = performance.now();
      const result = await sandbox.runInSandbox({
        snapshotFolder: folder,
        script,
        command,
        argumentsJson: "{}",
        limits: { timeoutMs: 30_000, maxOutputBytes: 65_536 },
        network: { mode: "none" },
        cgroups,
        ...(withPool && pools[cgroups] !== undefined ? { pool: pools[cgroups] } : {}),
      });
      const elapsed = performance.now() - started;
      if (result.status !== "ok")
        throw new Error(`skillgate ${language}: ${result.status} ${result.message ?? result.stderr}`);
      if (result.sandbox?.prestarted === true) prestarted[id] += 1;
      return elapsed;
    };
  };
  const contestants = [];
  for (const language of Object.keys(SCRIPTS)) {
    contestants.push({ id: `${language}/bare`, language, label: "bare bwrap", run: bare(language, false) });
    if (isRoot)
      contestants.push({
        id: `${language}/bare-65534`,
        language,
        label: "bare bwrap as 65534 (setpriv)",
        run: bare(language, true),
      });
    const add = (id, label, folder, cgroups, withPool) =>
      contestants.push({
        id: `${language}/${id}`,
        language,
        label,
        run: skillgate(`${language}/${id}`, language, folder, cgroups, withPool),
      });
    add("skillgate", "skillgate (cgroups auto)", open.folder, "auto", true);
    add("skillgate-off", "skillgate (cgroups off)", open.folder, "off", true);
    add("skillgate-cold", "skillgate, no sandbox kept ahead (cgroups auto)", open.folder, "auto", false);
    if (closed !== undefined)
      add("skillgate-portal", "skillgate, snapshot behind a closed folder", closed.folder, "auto", true);
  }
  try {
    // Warm-up: bubblewrap's and the interpreters' files into the page cache, the package's modules loaded.
    for (const contestant of contestants) await contestant.run();
    const samples = Object.fromEntries(contestants.map((contestant) => [contestant.id, []]));
    for (let round = 0; round < rounds; round += 1) {
      const order = contestants.map((_, index) => contestants[(index + round) % contestants.length]);
      for (const contestant of order) {
        samples[contestant.id].push(await contestant.run());
        // Untimed idle time between runs, as between a model's calls: the pool starts its next
        // sandbox then, instead of during whichever contestant comes next (rotation keeps the
        // cyclic order, so it would always be the same one).
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      if ((round + 1) % 10 === 0) log(`sandbox: round ${round + 1}/${rounds}`);
    }
    const support = sandbox.hostCgroupSupport();
    const results = contestants.map((contestant) => ({
      id: contestant.id,
      language: contestant.language,
      label: contestant.label,
      median: median(samples[contestant.id]),
      min: Math.min(...samples[contestant.id]),
      samples: samples[contestant.id].length,
      ...(contestant.id in prestarted ? { prestarted: prestarted[contestant.id] } : {}),
    }));
    const ratio = (language) => {
      const of = (id) => results.find((result) => result.id === `${language}/${id}`)?.median ?? Number.NaN;
      return of("skillgate") / of("bare");
    };
    const ratios = Object.fromEntries(Object.keys(SCRIPTS).map((language) => [language, ratio(language)]));
    // Many at once: every run is uid 65534 on the host, yet each has its own 256-process cap.
    log(`sandbox: ${concurrency} concurrent runs`);
    const concurrentStarted = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: concurrency }, () =>
        sandbox.runInSandbox({
          snapshotFolder: open.folder,
          script: SCRIPTS.python.script,
          command: SCRIPTS.python.command,
          argumentsJson: "{}",
          limits: { timeoutMs: 120_000, maxOutputBytes: 65_536 },
          network: { mode: "none" },
          ...(pools.auto !== undefined ? { pool: pools.auto } : {}),
        }),
      ),
    );
    const concurrent = {
      runs: concurrency,
      ok: outcomes.filter((outcome) => outcome.status === "ok").length,
      wallMs: performance.now() - concurrentStarted,
    };
    if (concurrent.ok !== concurrency)
      throw new Error(`only ${concurrent.ok} of ${concurrency} concurrent sandbox runs were ok`);
    return {
      concurrent,
      rounds,
      cgroups: support.version,
      isRoot,
      results,
      ratios,
      met: Object.values(ratios).every((value) => value <= SANDBOX_TARGET.limit),
    };
  } finally {
    for (const pool of Object.values(pools)) await pool?.close();
    rmSync(open.parent, { recursive: true, force: true, maxRetries: 3 });
    if (closed !== undefined) {
      chmodSync(closed.parent, 0o700);
      rmSync(closed.parent, { recursive: true, force: true, maxRetries: 3 });
    }
  }
}

/** The results as Markdown tables, one per language, with the target's verdict. */
export function formatSandboxResults(benchmark) {
  const lines = [
    `## Sandbox (${benchmark.rounds} rounds; cgroups on this host: ${benchmark.cgroups}; ${benchmark.isRoot ? "as root" : "as a user"})`,
    "",
  ];
  for (const language of Object.keys(SCRIPTS)) {
    const rows = benchmark.results.filter((result) => result.language === language);
    const bare = rows.find((row) => row.id.endsWith("/bare"))?.median ?? Number.NaN;
    lines.push(
      `**${language}, no-op script**`,
      "",
      "| contestant | median | min | vs bare bwrap | started ahead |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const row of rows)
      lines.push(
        `| ${row.label} | ${row.median.toFixed(1)} ms | ${row.min.toFixed(1)} ms | ${(row.median / bare).toFixed(2)} | ${row.prestarted === undefined ? "" : `${row.prestarted}/${row.samples + 1}`} |`,
      );
    lines.push("");
  }
  const { runs, ok, wallMs } = benchmark.concurrent;
  lines.push(
    `**${runs} concurrent runs** (python no-op, cgroups auto, through the pool): ${ok} ok, ${wallMs.toFixed(0)} ms wall, ${(wallMs / runs).toFixed(1)} ms a run`,
    "",
  );
  for (const [language, value] of Object.entries(benchmark.ratios))
    lines.push(
      `${value <= SANDBOX_TARGET.limit ? "PASS" : "MISS"}: ${SANDBOX_TARGET.label}, ${language}: ${value.toFixed(2)}x`,
    );
  return lines.join("\n");
}

/** For bench/run.mjs: runs the benchmark and returns its report. */
export async function sandboxReport({ rounds = 30, log = () => undefined } = {}) {
  return formatSandboxResults(await runSandboxBenchmark({ rounds, log }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  console.log(await sandboxReport({ rounds, log: (message) => console.error(`bench: ${message}`) }));
}
