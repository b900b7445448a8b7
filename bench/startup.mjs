/**
 * Start-up cost, whole process: what a person waits for when they type a command. Every
 * figure is a fresh `node` process from spawn to exit, the contestants alternating round by
 * round so load on the machine falls on all of them alike:
 *
 * - `node -e 0` (the floor for any Node CLI) against `skillgate --version`;
 * - `skillgate list --json` on an empty home (built-in skills only);
 * - at each size, `skillgate list --json` over the generated tree against the floor (a bare
 *   node process that lists the folder and reads each SKILL.md) and pi's loader in its own
 *   process (import plus `loadSkillsFromDir`), both from bench/cold-worker.mjs.
 *
 * Run alone: `node bench/run.mjs --only startup [--sizes 1000,10000] [--startup-rounds 15]`.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { distFolder, skillgateOptions } from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";
import { median } from "./stats.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const COLD_WORKER = join(BENCH, "cold-worker.mjs");

/** The targets, as ratios of medians. */
export const STARTUP_TARGETS = {
  versionOverNode: 1.5,
  listOverPi: 0.35,
  listOverFloor: 2.5,
};

/** Wall-clock milliseconds of one process, and its stdout; throws when it fails. */
function timed(argv, options) {
  const start = performance.now();
  const result = spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 1 << 30, ...options });
  const ms = performance.now() - start;
  if (result.status !== 0)
    throw new Error(`${argv.join(" ")} exited ${result.status}: ${result.stderr.slice(0, 500)}`);
  return { ms, out: result.stdout };
}

/** Runs each contestant once per round, in turn, and returns the medians. */
function alternate(contestants, rounds, check) {
  const samples = Object.fromEntries(Object.keys(contestants).map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, run] of Object.entries(contestants)) {
      const { ms, out } = run();
      if (round === 0) check?.(name, out);
      samples[name].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

/** The `skillgate` CLI of the build under test, as a node argv. */
function cli(...argv) {
  return [join(distFolder(), "surfaces", "cli", "main.js"), ...argv];
}

/** Measures start-up and `list --json`; returns medians and ratios. */
export async function runStartupBenchmark({ sizes, rounds, log }) {
  const empty = mkdtempSync(join(tmpdir(), "skillgate-startup-"));
  for (const folder of ["home", "config", "data", "project"]) mkdirSync(join(empty, folder));
  const emptyEnvironment = { ...process.env, HOME: join(empty, "home"), NO_COLOR: "1" };
  const emptyFlags = ["--config", join(empty, "config"), "--data", join(empty, "data")];
  log(`startup: --version and list on an empty home, ${rounds} rounds`);
  const base = alternate(
    {
      node: () => timed(["-e", "0"], { env: emptyEnvironment }),
      version: () => timed(cli("--version"), { env: emptyEnvironment, cwd: join(empty, "project") }),
      listEmpty: () =>
        timed(cli(...emptyFlags, "list", "--json"), { env: emptyEnvironment, cwd: join(empty, "project") }),
    },
    rounds,
  );
  const results = [];
  for (const size of sizes) {
    const { folder } = generateSkills(size);
    const options = skillgateOptions(folder, size);
    const cwd = join(options.folders.home, "..");
    const environment = { ...process.env, HOME: options.folders.home, NO_COLOR: "1" };
    const flags = ["--config", options.folders.config, "--data", options.folders.data, "--no-builtins"];
    const sizeRounds = size >= 10_000 ? Math.max(5, Math.ceil(rounds / 2)) : rounds;
    log(`startup: list --json at ${size} skills, ${sizeRounds} rounds`);
    const medians = alternate(
      {
        floor: () => timed([COLD_WORKER, "floor", folder, String(size)], { env: environment, cwd }),
        pi: () => timed([COLD_WORKER, "pi", folder, String(size)], { env: environment, cwd }),
        skillgate: () => timed(cli(...flags, "list", "--json"), { env: environment, cwd }),
      },
      sizeRounds,
      (name, out) => {
        const count = name === "skillgate" ? JSON.parse(out).skills.length : JSON.parse(out).count;
        if (count !== size) throw new Error(`${name} found ${count} skills, expected ${size}`);
      },
    );
    results.push({
      size,
      rounds: sizeRounds,
      ...medians,
      overPi: medians.skillgate / medians.pi,
      overFloor: medians.skillgate / medians.floor,
    });
  }
  return { rounds, ...base, versionOverNode: base.version / base.node, results };
}

/** Whether every start-up target was met. */
export function startupTargetsMet(startup) {
  return (
    startup.versionOverNode <= STARTUP_TARGETS.versionOverNode &&
    startup.results.every(
      (result) =>
        result.overPi <= STARTUP_TARGETS.listOverPi && result.overFloor <= STARTUP_TARGETS.listOverFloor,
    )
  );
}

/** The start-up figures as Markdown. */
export function formatStartupResults(startup) {
  const mark = (value, target) => `${value.toFixed(2)}x ${value <= target ? "PASS" : "MISS"} (≤ ${target}x)`;
  const lines = [
    "## Start-up, whole process (medians, ms)",
    "",
    `${startup.rounds} alternating rounds; each figure is a fresh process from spawn to exit.`,
    "",
    "| command | median ms | vs `node -e 0` |",
    "| --- | ---: | ---: |",
    `| \`node -e 0\` | ${startup.node.toFixed(1)} | 1.00x |`,
    `| \`skillgate --version\` | ${startup.version.toFixed(1)} | ${mark(startup.versionOverNode, STARTUP_TARGETS.versionOverNode)} |`,
    `| \`skillgate list --json\`, empty home | ${startup.listEmpty.toFixed(1)} | ${(startup.listEmpty / startup.node).toFixed(2)}x |`,
    "",
    "| skills | floor ms | pi ms | skillgate `list --json` ms | vs pi | vs floor |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const result of startup.results) {
    lines.push(
      `| ${result.size} | ${result.floor.toFixed(1)} | ${result.pi.toFixed(1)} | ${result.skillgate.toFixed(1)} | ${mark(result.overPi, STARTUP_TARGETS.listOverPi)} | ${mark(result.overFloor, STARTUP_TARGETS.listOverFloor)} |`,
    );
  }
  return lines.join("\n");
}
