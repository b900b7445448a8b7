/**
 * The mounts benchmark (issue 13): what a run with a workspace and a declared package
 * environment costs, against today's run (no workspace, no environment) and against a bare
 * bwrap run of the same script with the same mounts. A no-op Python script (`/usr/bin/python3
 * -B`) runs:
 *
 * - bare bwrap today: `/usr`, the loader's links, `/proc`, `/dev`, a `/tmp` tmpfs, the snapshot
 *   at `/skill` (bench/sandbox-runs.mjs); as root after `setpriv` drops to 65534.
 * - bare bwrap, workspace and environment: the same, plus a package environment's Python folder
 *   read-only at `/packages/python` on `PYTHONPATH` (where `SandboxRunner` binds a declared
 *   environment) and a 20-file project bound writable at its own path as the working folder.
 * - skillgate today: `runInSandbox` through a `SandboxPool`, as `SandboxRunner` runs it.
 * - skillgate, workspace and environment: the same request `SandboxRunner` makes for a skill
 *   with a declared environment and a writable workspace (`mounts`, `extraEnvironment`,
 *   `workspace`); and the same again with the router's before/after walks of the workspace
 *   (`scanWorkspace` before and after, `compareScans`) in the timing.
 * - the interpreter mount alone: a venv (Debian's python3, `--system-site-packages`, one module
 *   of its own) as the interpreter, its prefix bound (`interpreterMounts`), bare and skillgate.
 *
 * Untimed first runs import the environment's and the venv's own modules in the sandbox and
 * write a file into the workspace, so no mount is measured for nothing.
 *
 * The target (issue 13): the workspace and environment mounts add at most 10 % over bare, i.e.
 * (skillgate with them - skillgate today) / bare bwrap with the same mounts <= 0.10 at the
 * median. Rounds rotate the order with 30 ms of idle time after each run; figures are medians
 * with minimums. `node bench/mounts.mjs [rounds]` runs it alone on the existing build.
 */

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { timedSpawn } from "./sandbox.mjs";
import { bareBwrapArgv, resultRows, runRotatedRounds, timedSandboxRun } from "./sandbox-runs.mjs";

const PROJECT_FILES = 20;

/** The target from the issue: the workspace and environment mounts add at most 10 % over bare bwrap. */
export const MOUNTS_TARGET = {
  label: "the workspace and environment mounts add <= 10 % over bare bwrap (median)",
  limit: 0.1,
};

/** A venv with one module, an environment with one module, a project, and a snapshot of scripts. */
function makeFixtures() {
  const parent = mkdtempSync(join(tmpdir(), "skillgate-bench-mounts-"));
  chmodSync(parent, 0o755);
  const venv = join(parent, "venv");
  execFileSync("/usr/bin/python3", ["-m", "venv", "--system-site-packages", "--without-pip", venv]);
  const lib = join(venv, "lib");
  writeFileSync(join(lib, readdirSync(lib)[0], "site-packages", "venvonly.py"), "VALUE = 1\n");
  const snapshot = join(parent, "snapshot");
  mkdirSync(join(snapshot, "scripts"), { recursive: true });
  const script = (name, text) => writeFileSync(join(snapshot, "scripts", name), text, { mode: 0o444 });
  script("noop.py", "pass\n");
  script("venv.py", "import venvonly\n");
  // Imports the environment's module and writes into the workspace: both mounts work.
  script("full.py", "import envonly\nopen('written.txt', 'w').write('x')\n");
  chmodSync(join(snapshot, "scripts"), 0o555);
  chmodSync(snapshot, 0o555);
  // A package environment's Python folder as the environment store keeps it (pip's --target).
  const environment = join(parent, "environment", "python");
  mkdirSync(environment, { recursive: true });
  writeFileSync(join(environment, "envonly.py"), "VALUE = 2\n");
  const workspace = join(parent, "project");
  mkdirSync(join(workspace, "src"), { recursive: true });
  for (let index = 0; index < PROJECT_FILES; index += 1)
    writeFileSync(join(workspace, "src", `file${index}.txt`), "text\n");
  chmodSync(workspace, 0o777);
  return { parent, venv, snapshot, environment, workspace };
}

/** Runs the benchmark; throws when any run fails or the build lacks a part it measures. */
export async function runMountsBenchmark({ rounds = 30, log = () => undefined } = {}) {
  const dist = distFolder();
  const load = (...path) => import(pathToFileURL(join(dist, ...path)).href);
  const sandbox = await load("runners", "sandbox", "index.js");
  const interpreters = await load("runners", "interpreters", "resolve-interpreter.js");
  const changes = await load("runners", "workspace", "changes.js");
  const { ENVIRONMENT_MOUNTS } = await load("runners", "environments", "build-script.js");
  const isRoot = process.getuid?.() === 0;
  const fixtures = makeFixtures();
  const resolved = interpreters.resolveInterpreter("python3", {
    searchPath: `${join(fixtures.venv, "bin")}:/usr/bin`,
  });
  if (!resolved.ok || resolved.interpreter.mounts.length === 0)
    throw new Error(`the venv did not resolve with a mount: ${JSON.stringify(resolved)}`);
  const { executable, mounts } = resolved.interpreter;
  const target = ENVIRONMENT_MOUNTS.python;
  const snapshot = fixtures.snapshot;
  const python = (interpreter, script) => [interpreter, "-B", `/skill/scripts/${script}`];
  const bareFull = {
    extra: [
      "--ro-bind",
      fixtures.environment,
      target,
      "--setenv",
      "PYTHONPATH",
      target,
      "--bind",
      fixtures.workspace,
      fixtures.workspace,
    ],
    chdir: fixtures.workspace,
  };
  const bareVenv = { extra: mounts.flatMap((mount) => ["--ro-bind", mount.source, mount.target]) };
  // What SandboxRunner asks of the sandbox for a declared Python environment and a writable workspace.
  const fullRequest = {
    mounts: [{ source: fixtures.environment, target, writable: false }],
    extraEnvironment: { PYTHONPATH: target },
    workspace: { path: fixtures.workspace, access: "write", source: fixtures.workspace, readOnlyFiles: [] },
  };
  const walks = {
    before: () => changes.scanWorkspace(fixtures.workspace),
    after: (before) => changes.compareScans(before, changes.scanWorkspace(fixtures.workspace)),
  };
  const pool = new sandbox.SandboxPool();
  const run = (script, interpreter, request = {}, around = undefined) =>
    timedSandboxRun(
      sandbox,
      pool,
      snapshot,
      { script: `scripts/${script}`, command: [interpreter, "-B"], ...request },
      around,
    );
  const as = isRoot ? " (as 65534, setpriv)" : "";
  const contestants = [
    {
      id: "bare-full",
      label: `bare bwrap, workspace and environment${as}`,
      run: () =>
        timedSpawn(
          bareBwrapArgv({ isRoot, snapshot, command: python("/usr/bin/python3", "noop.py"), ...bareFull }),
        ),
    },
    {
      id: "bare-today",
      label: `bare bwrap today (no workspace, no environment)${as}`,
      run: () =>
        timedSpawn(bareBwrapArgv({ isRoot, snapshot, command: python("/usr/bin/python3", "noop.py") })),
    },
    {
      id: "full",
      label: "skillgate, workspace (writable) and environment",
      run: run("noop.py", "/usr/bin/python3", fullRequest),
    },
    {
      id: "full-walks",
      label: `the same with the workspace's before/after walks (${PROJECT_FILES} files)`,
      run: run("noop.py", "/usr/bin/python3", fullRequest, walks),
    },
    {
      id: "today",
      label: "skillgate today (no workspace, no environment)",
      run: run("noop.py", "/usr/bin/python3"),
    },
    {
      id: "bare-venv",
      label: `bare bwrap, venv interpreter mounted${as}`,
      run: () =>
        timedSpawn(bareBwrapArgv({ isRoot, snapshot, command: python(executable, "noop.py"), ...bareVenv })),
    },
    {
      id: "venv",
      label: "skillgate, venv interpreter (prefix mounted)",
      run: run("noop.py", executable, { interpreterMounts: mounts }),
    },
  ];
  try {
    await run("full.py", "/usr/bin/python3", fullRequest)();
    if (!existsSync(join(fixtures.workspace, "written.txt")))
      throw new Error("the workspace was not written");
    await timedSpawn(
      bareBwrapArgv({ isRoot, snapshot, command: python("/usr/bin/python3", "full.py"), ...bareFull }),
    );
    await run("venv.py", executable, { interpreterMounts: mounts })();
    await timedSpawn(
      bareBwrapArgv({ isRoot, snapshot, command: python(executable, "venv.py"), ...bareVenv }),
    );
    const results = await runRotatedRounds({ name: "mounts", contestants, rounds, log });
    const of = (id) => results.find((result) => result.id === id)?.median ?? Number.NaN;
    const added = (of("full") - of("today")) / of("bare-full");
    return {
      rounds,
      isRoot,
      projectFiles: PROJECT_FILES,
      environmentTarget: target,
      interpreterMounts: mounts,
      results,
      added,
      walksAdded: (of("full-walks") - of("today")) / of("bare-full"),
      bareAdded: (of("bare-full") - of("bare-today")) / of("bare-full"),
      ratioToBare: of("full") / of("bare-full"),
      venvAdded: (of("venv") - of("today")) / of("bare-venv"),
      venvRatioToBare: of("venv") / of("bare-venv"),
      met: added <= MOUNTS_TARGET.limit,
    };
  } finally {
    await pool.close();
    rmSync(fixtures.parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

const percent = (fraction) => `${(fraction * 100).toFixed(1)} %`;

/** The results as a Markdown table with the target's verdict. */
export function formatMountsResults(benchmark) {
  const bare = benchmark.results.find((row) => row.id === "bare-full")?.median ?? Number.NaN;
  return [
    `## Workspace and environment mounts (${benchmark.rounds} rounds; ${benchmark.isRoot ? "as root" : "as a user"})`,
    "",
    "| contestant | median | min | vs bare bwrap, workspace and environment |",
    "| --- | --- | --- | --- |",
    ...resultRows(benchmark.results, bare),
    "",
    `environment at ${benchmark.environmentTarget}; venv mounts: ${benchmark.interpreterMounts.map((mount) => mount.target).join(", ")}`,
    `the workspace and environment mounts add ${percent(benchmark.added)} of bare bwrap (same mounts) to a skillgate run (${percent(benchmark.bareAdded)} to a bare run); skillgate with them is ${benchmark.ratioToBare.toFixed(2)}x bare with them`,
    `with the workspace's before/after walks (${benchmark.projectFiles} files): ${percent(benchmark.walksAdded)}`,
    `the venv interpreter mount alone adds ${percent(benchmark.venvAdded)} of bare bwrap (venv mounted); skillgate with it is ${benchmark.venvRatioToBare.toFixed(2)}x bare with it`,
    `${benchmark.met ? "PASS" : "MISS"}: ${MOUNTS_TARGET.label}: ${percent(benchmark.added)}`,
  ].join("\n");
}

/** For bench/run.mjs: runs the benchmark and returns its report. */
export async function mountsReport({ rounds = 30, log = () => undefined } = {}) {
  return formatMountsResults(await runMountsBenchmark({ rounds, log }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  console.log(await mountsReport({ rounds, log: (message) => console.error(`bench: ${message}`) }));
}
