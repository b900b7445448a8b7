/**
 * The mounts benchmark (issue 13): what binding an interpreter's prefix into the sandbox costs.
 * A no-op Python script, run
 * with a venv (made with Debian's python3, `--system-site-packages`, one module of its own,
 * which a first untimed run imports to show the mount works) and with `/usr/bin/python3`:
 *
 * - bare bwrap: `/usr`, the loader's links, `/proc`, `/dev`, a `/tmp` tmpfs, the snapshot at
 *   `/skill`, and for the venv the venv read-only at its own path, running its `bin/python3`;
 *   as root after `setpriv` drops to 65534 (the identity skillgate's sandbox has).
 * - skillgate: `runInSandbox` through a `SandboxPool`, as `SandboxRunner` runs it; with the
 *   venv as the interpreter and its prefix mounted (`interpreterMounts`), and as today
 *   (`/usr/bin/python3`, no mounts).
 *
 * When the build has the workspace (and a package environment), also: bare bwrap and skillgate
 * with the venv, a writable 20-file workspace bound at its own path as the working folder (and
 * the environment read-only at its mount point on PYTHONPATH), and skillgate with the router's
 * before/after comparison of the workspace around the run.
 *
 * The target (issue 13): the mounts add at most 10 % over bare bwrap, i.e. (skillgate with them
 * - skillgate today) / bare bwrap with the same mounts <= 0.10 at the median; the same
 * difference for bare bwrap is shown beside it. Rounds rotate the order with 30 ms of idle time after each run;
 * figures are medians with minimums. `node bench/mounts.mjs [rounds]` runs it alone.
 */

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { rootLinks, timedSpawn } from "./sandbox.mjs";
import { median } from "./stats.mjs";

const PAUSE_MS = 30;

/** The target from the issue: the mounts add at most 10 % over a bare bwrap run. */
export const MOUNTS_TARGET = { label: "the run's mounts add <= 10 % over bare bwrap (median)", limit: 0.1 };

/** A venv with one module of its own, and a snapshot with a script that imports it and a no-op. */
function makeFixtures() {
  const parent = mkdtempSync(join(tmpdir(), "skillgate-bench-mounts-"));
  chmodSync(parent, 0o755);
  const venv = join(parent, "venv");
  execFileSync("/usr/bin/python3", ["-m", "venv", "--system-site-packages", "--without-pip", venv]);
  const lib = join(venv, "lib");
  writeFileSync(join(lib, readdirSync(lib)[0], "site-packages", "venvonly.py"), "VALUE = 1\n");
  const snapshot = join(parent, "snapshot");
  mkdirSync(join(snapshot, "scripts"), { recursive: true });
  writeFileSync(join(snapshot, "scripts", "venv.py"), "import venvonly\n", { mode: 0o444 });
  writeFileSync(join(snapshot, "scripts", "noop.py"), "pass\n", { mode: 0o444 });
  // Imports the environment's module and writes into the workspace: both mounts work.
  writeFileSync(
    join(snapshot, "scripts", "full.py"),
    "import venvonly, envonly\nopen('written.txt', 'w').write('x')\n",
    { mode: 0o444 },
  );
  writeFileSync(
    join(snapshot, "scripts", "write.py"),
    "import venvonly\nopen('written.txt', 'w').write('x')\n",
    {
      mode: 0o444,
    },
  );
  chmodSync(join(snapshot, "scripts"), 0o555);
  chmodSync(snapshot, 0o555);
  // A package environment as the environment store keeps one (its Python folder), and a small project.
  const environment = join(parent, "environment", "python");
  mkdirSync(environment, { recursive: true });
  writeFileSync(join(environment, "envonly.py"), "VALUE = 2\n");
  const workspace = join(parent, "project");
  mkdirSync(join(workspace, "src"), { recursive: true });
  for (let index = 0; index < 20; index += 1)
    writeFileSync(join(workspace, "src", `file${index}.txt`), "text\n");
  chmodSync(workspace, 0o777);
  return { parent, venv, snapshot, environment, workspace };
}

/**
 * The workspace and package-environment parts of the build (issue 13's other parts), each
 * when the build has it: the workspace's scan, and the environment's mount point.
 */
async function workspaceAndEnvironment(dist) {
  const load = async (...path) => {
    try {
      return await import(pathToFileURL(join(dist, ...path)).href);
    } catch {
      return undefined;
    }
  };
  const changes = await load("runners", "workspace", "changes.js");
  const environments = await load("runners", "environments", "build-script.js");
  return {
    changes: changes?.scanWorkspace !== undefined ? changes : undefined,
    pythonTarget: environments?.ENVIRONMENT_MOUNTS?.python,
  };
}

/** Runs the benchmark; throws when any run fails. */
export async function runMountsBenchmark({ rounds = 30, log = () => undefined } = {}) {
  const dist = distFolder();
  const sandbox = await import(pathToFileURL(join(dist, "runners", "sandbox", "index.js")).href);
  const interpreters = await import(
    pathToFileURL(join(dist, "runners", "interpreters", "resolve-interpreter.js")).href
  );
  const isRoot = process.getuid?.() === 0;
  const fixtures = makeFixtures();
  const resolved = interpreters.resolveInterpreter("python3", {
    searchPath: `${join(fixtures.venv, "bin")}:/usr/bin`,
  });
  if (!resolved.ok || resolved.interpreter.mounts.length === 0)
    throw new Error(`the venv did not resolve with a mount: ${JSON.stringify(resolved)}`);
  const { executable, mounts } = resolved.interpreter;
  const extended = await workspaceAndEnvironment(dist);
  const full =
    extended === undefined
      ? undefined
      : { workspace: fixtures.workspace, environment: fixtures.environment, target: extended.pythonTarget };
  const bareArgv = (interpreter, interpreterMounts, withFull = false) => [
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
    ...interpreterMounts.flatMap((mount) => ["--ro-bind", mount.source, mount.target]),
    "--ro-bind",
    fixtures.snapshot,
    "/skill",
    ...(withFull && full !== undefined
      ? [
          "--ro-bind",
          full.environment,
          full.target,
          "--setenv",
          "PYTHONPATH",
          full.target,
          "--bind",
          full.workspace,
          full.workspace,
          "--chdir",
          full.workspace,
        ]
      : ["--chdir", "/tmp"]),
    "--",
    interpreter,
    "-B",
    "/skill/scripts/noop.py",
  ];
  const pool = new sandbox.SandboxPool();
  const fullRequest =
    full === undefined
      ? {}
      : {
          ...(full.target !== undefined
            ? {
                mounts: [{ source: full.environment, target: full.target, writable: false }],
                extraEnvironment: { PYTHONPATH: full.target },
              }
            : {}),
          workspace: { path: full.workspace, access: "write", source: full.workspace, readOnlyFiles: [] },
        };
  const skillgate =
    (script, command, interpreterMounts, withFull = false, scan = false) =>
    async () => {
      const started = performance.now();
      // The router's before/after comparison of the workspace, when timed with it.
      const before = scan ? extended.changes.scanWorkspace(full.workspace) : undefined;
      const result = await sandbox.runInSandbox({
        snapshotFolder: fixtures.snapshot,
        script,
        command,
        interpreterMounts,
        argumentsJson: "{}",
        limits: { timeoutMs: 30_000, maxOutputBytes: 65_536 },
        network: { mode: "none" },
        pool,
        ...(withFull ? fullRequest : {}),
      });
      if (before !== undefined)
        extended.changes.compareScans(before, extended.changes.scanWorkspace(full.workspace));
      const elapsed = performance.now() - started;
      if (result.status !== "ok")
        throw new Error(`skillgate ${script}: ${result.status} ${result.message ?? result.stderr}`);
      return elapsed;
    };
  const as = isRoot ? " (as 65534, setpriv)" : "";
  const contestants = [
    {
      id: "bare-venv",
      label: `bare bwrap, venv mounted${as}`,
      run: () => timedSpawn(bareArgv(executable, mounts)),
    },
    {
      id: "bare-today",
      label: `bare bwrap, /usr/bin/python3${as}`,
      run: () => timedSpawn(bareArgv("/usr/bin/python3", [])),
    },
    {
      id: "venv",
      label: "skillgate, venv interpreter (prefix mounted)",
      run: skillgate("scripts/noop.py", [executable, "-B"], mounts),
    },
    {
      id: "today",
      label: "skillgate today (/usr/bin/python3, no mounts)",
      run: skillgate("scripts/noop.py", ["/usr/bin/python3", "-B"], []),
    },
  ];
  const parts = full?.target !== undefined ? "venv, environment and workspace" : "venv and workspace";
  if (full !== undefined)
    contestants.push(
      {
        id: "bare-full",
        label: `bare bwrap, ${parts} mounted${as}`,
        run: () => timedSpawn(bareArgv(executable, mounts, true)),
      },
      {
        id: "full",
        label: `skillgate, ${parts} (writable)`,
        run: skillgate("scripts/noop.py", [executable, "-B"], mounts, true),
      },
      {
        id: "full-scan",
        label: "the same with the workspace's before/after comparison (20 files)",
        run: skillgate("scripts/noop.py", [executable, "-B"], mounts, true, true),
      },
    );
  try {
    // The venv's own module imports in the sandbox (else the mount would be measured for nothing).
    await skillgate("scripts/venv.py", [executable, "-B"], mounts)();
    if (full !== undefined) {
      await skillgate(
        full.target !== undefined ? "scripts/full.py" : "scripts/write.py",
        [executable, "-B"],
        mounts,
        true,
      )();
      if (!existsSync(join(full.workspace, "written.txt"))) throw new Error("the workspace was not written");
    }
    for (const contestant of contestants) await contestant.run();
    const samples = Object.fromEntries(contestants.map((contestant) => [contestant.id, []]));
    for (let round = 0; round < rounds; round += 1) {
      const order = contestants.map((_, index) => contestants[(index + round) % contestants.length]);
      for (const contestant of order) {
        samples[contestant.id].push(await contestant.run());
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
      if ((round + 1) % 10 === 0) log(`mounts: round ${round + 1}/${rounds}`);
    }
    const results = contestants.map((contestant) => ({
      id: contestant.id,
      label: contestant.label,
      median: median(samples[contestant.id]),
      min: Math.min(...samples[contestant.id]),
      samples: samples[contestant.id].length,
    }));
    const of = (id) => results.find((result) => result.id === id)?.median ?? Number.NaN;
    const added = (of("venv") - of("today")) / of("bare-venv");
    const fullAdded = full === undefined ? undefined : (of("full") - of("today")) / of("bare-full");
    return {
      rounds,
      isRoot,
      mounts,
      results,
      added,
      bareAdded: (of("bare-venv") - of("bare-today")) / of("bare-venv"),
      ratioToBare: of("venv") / of("bare-venv"),
      ...(fullAdded !== undefined
        ? {
            fullParts: parts,
            fullAdded,
            fullBareAdded: (of("bare-full") - of("bare-today")) / of("bare-full"),
            fullRatioToBare: of("full") / of("bare-full"),
          }
        : {}),
      met: (fullAdded ?? added) <= MOUNTS_TARGET.limit,
      ...(full === undefined
        ? { notMeasured: "the workspace and declared-environment mounts (not in this build)" }
        : full.target === undefined
          ? { notMeasured: "a declared package environment's mount (not in this build)" }
          : {}),
    };
  } finally {
    await pool.close();
    rmSync(fixtures.parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** The results as a Markdown table with the target's verdict. */
export function formatMountsResults(benchmark) {
  const bare = benchmark.results.find((row) => row.id === "bare-venv")?.median ?? Number.NaN;
  const lines = [
    `## Interpreter mounts (${benchmark.rounds} rounds; ${benchmark.isRoot ? "as root" : "as a user"})`,
    "",
    "| contestant | median | min | vs bare bwrap, venv mounted |",
    "| --- | --- | --- | --- |",
    ...benchmark.results.map(
      (row) =>
        `| ${row.label} | ${row.median.toFixed(1)} ms | ${row.min.toFixed(1)} ms | ${(row.median / bare).toFixed(2)} |`,
    ),
    "",
    `mounted: ${benchmark.mounts.map((mount) => mount.target).join(", ")}`,
    ...(benchmark.notMeasured !== undefined ? [`not measured: ${benchmark.notMeasured}`] : []),
    "",
    ...(benchmark.fullAdded !== undefined
      ? [
          `the ${benchmark.fullParts} mounts add ${(benchmark.fullAdded * 100).toFixed(1)} % of bare bwrap (with the same mounts) to a skillgate run (${(benchmark.fullBareAdded * 100).toFixed(1)} % to a bare bwrap run); skillgate with them is ${benchmark.fullRatioToBare.toFixed(2)}x bare bwrap with the same mounts`,
        ]
      : []),
    `the venv and its mount add ${(benchmark.added * 100).toFixed(1)} % of bare bwrap to a skillgate run (${(benchmark.bareAdded * 100).toFixed(1)} % to a bare bwrap run); skillgate with the venv is ${benchmark.ratioToBare.toFixed(2)}x bare bwrap with the same mounts`,
    `${benchmark.met ? "PASS" : "MISS"}: ${MOUNTS_TARGET.label}: ${((benchmark.fullAdded ?? benchmark.added) * 100).toFixed(1)} %${benchmark.fullAdded !== undefined ? ` (${benchmark.fullParts})` : " (venv only)"}`,
  ];
  return lines.join("\n");
}

/** For bench/run.mjs: runs the benchmark and returns its report. */
export async function mountsReport({ rounds = 30, log = () => undefined } = {}) {
  return formatMountsResults(await runMountsBenchmark({ rounds, log }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  console.log(await mountsReport({ rounds, log: (message) => console.error(`bench: ${message}`) }));
}
