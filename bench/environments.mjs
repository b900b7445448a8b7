/**
 * The package environment benchmark (issue 13): building a skill's environment for one locally
 * built wheel, against a bare `pip install` of the same wheel from the same folder.
 *
 * - bare pip: `/usr/bin/python3 -m pip install --target FRESH --only-binary=:all: --no-index
 *   --find-links WHEELS --no-cache-dir tinypkg` on the host: the least an install does.
 * - skillgate: `PackageEnvironments.ensure` from the built package with a fresh data folder each
 *   round, so every round builds: the skill folder hashed and snapshotted, the declarations read,
 *   the same pip command run in the sandbox (no network, the wheel folder bound read-only), the
 *   result sealed read-only and renamed into place.
 * - skillgate, reused: `ensure` again on the same data folder: the lookup a later run pays.
 *
 * Rounds alternate the order; figures are medians with minimums, ratios are ratios of medians.
 * There is no target: the figure says what the sandboxed, atomic build costs over a bare pip.
 * `node bench/environments.mjs [rounds]` runs it alone.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

/** pip with none of this machine's pip settings. */
const PIP_ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PIP_"))),
  PIP_CONFIG_FILE: "/dev/null",
};

function buildWheel(folder) {
  const source = mkdtempSync(join(tmpdir(), "skillgate-bench-wheel-"));
  mkdirSync(join(source, "tinypkg"));
  writeFileSync(
    join(source, "pyproject.toml"),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "tinypkg"\nversion = "1.0.0"\n',
  );
  writeFileSync(join(source, "tinypkg", "__init__.py"), "VALUE = 1\n");
  execFileSync(
    "/usr/bin/python3",
    ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", folder, source],
    { env: PIP_ENV, stdio: "pipe" },
  );
  rmSync(source, { recursive: true, force: true });
}

function barePip(wheels, target) {
  execFileSync(
    "/usr/bin/python3",
    [
      "-m",
      "pip",
      "install",
      "--target",
      target,
      "--only-binary=:all:",
      "--no-index",
      "--find-links",
      wheels,
      "--no-cache-dir",
      "--disable-pip-version-check",
      "-q",
      "tinypkg",
    ],
    { env: PIP_ENV, stdio: "pipe" },
  );
}

/** Runs the benchmark; returns medians and minimums in milliseconds and the ratio. */
export async function runEnvironmentsBenchmark({ rounds = 5, log = () => {} } = {}) {
  const dist = distFolder();
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const { PackageEnvironments } = await load("runners/environments/package-environments.js");
  const { EnvironmentStore } = await load("runners/environments/environment-store.js");
  const { SnapshotStore } = await load("runners/snapshot.js");
  const { domainProxyProvider } = await load("runners/sandbox/sandbox-runner.js");
  const { hashSkillFolder } = await load("skill/content-hash.js");

  const tree = mkdtempSync(join(tmpdir(), "skillgate-bench-env-"));
  try {
    const wheels = join(tree, "wheels");
    buildWheel(wheels);
    const skill = join(tree, "skill");
    mkdirSync(join(skill, "scripts"), { recursive: true });
    writeFileSync(join(skill, "SKILL.md"), "---\nname: bench\ndescription: Bench.\n---\nBody.\n");
    writeFileSync(join(skill, "scripts", "requirements.txt"), "tinypkg\n");
    writeFileSync(join(skill, "scripts", "go.py"), "import tinypkg\n");
    const hash = hashSkillFolder(skill).hash;
    const timings = { bare: [], build: [], reuse: [] };
    const environmentsFor = (data) =>
      new PackageEnvironments({
        store: new EnvironmentStore({ dataFolder: data }),
        snapshots: new SnapshotStore({ dataFolder: data }),
        indexes: { python: { kind: "folder", folder: wheels }, node: { kind: "folder", folder: wheels } },
        proxy: domainProxyProvider(),
      });
    for (let round = 0; round < rounds; round += 1) {
      const bare = async () => {
        const target = join(tree, `bare-${round}`);
        const started = performance.now();
        barePip(wheels, target);
        timings.bare.push(performance.now() - started);
      };
      const build = async () => {
        const data = join(tree, `data-${round}`);
        const environments = environmentsFor(data);
        let started = performance.now();
        const built = await environments.ensure({ skill: "bench", hash, folder: skill });
        if (!built.ok || !built.built) throw new Error(`the build failed: ${built.result?.message}`);
        timings.build.push(performance.now() - started);
        started = performance.now();
        const reused = await environments.ensure({ skill: "bench", hash, folder: skill });
        if (!reused.ok || reused.built) throw new Error("the second ensure built again");
        timings.reuse.push(performance.now() - started);
      };
      for (const step of round % 2 === 0 ? [bare, build] : [build, bare]) await step();
      log(`environments: round ${round + 1}/${rounds}`);
    }
    const of = (values) => ({ median: median(values), min: Math.min(...values) });
    const result = { rounds, bare: of(timings.bare), build: of(timings.build), reuse: of(timings.reuse) };
    return { ...result, ratio: result.build.median / result.bare.median };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

/** The benchmark's section of the report. */
export function formatEnvironmentsResults(result) {
  const ms = (value) => `${value.toFixed(0)} ms`;
  return [
    `## package environment build (one local wheel, ${result.rounds} rounds, median / min)`,
    "",
    "| contestant | median | min |",
    "| --- | --- | --- |",
    `| bare pip install --target (host, no sandbox) | ${ms(result.bare.median)} | ${ms(result.bare.min)} |`,
    `| skillgate environment build (hash, snapshot, sandboxed pip, seal, rename) | ${ms(result.build.median)} | ${ms(result.build.min)} |`,
    `| skillgate, environment reused | ${result.reuse.median.toFixed(2)} ms | ${result.reuse.min.toFixed(2)} ms |`,
    "",
    `build / bare pip: ${result.ratio.toFixed(2)}x`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 5);
  const result = await runEnvironmentsBenchmark({
    rounds,
    log: (message) => console.error(`bench: ${message}`),
  });
  console.log(formatEnvironmentsResults(result));
}
