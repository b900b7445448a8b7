/**
 * The discovery benchmark (issue 2, section 8). For each size N it times, in one run:
 *
 * - floor: list the folder and read every SKILL.md, nothing else;
 * - pi: `loadSkillsFromDir({ dir, source: "user" })` from @mariozechner/pi-coding-agent;
 * - skillgate: `discoverSkills` with the tree as its config skills folder, cold in a fresh
 *   process (the call timed inside the process, and the whole process's wall time), and
 *   in-process: the first call on a new `SkillDiscovery`, then repeats with nothing changed.
 *
 * In-process rounds alternate the contestants' order to spread noise; every figure is a
 * median with its minimum. Every contestant must find exactly N skills or the run fails.
 * The targets (at 10,000) are reported as PASS or MISS, never asserted.
 *
 * The operating system's file cache is warm for every contestant (the tree was just
 * generated or read); "cold" means a fresh Node process: no JIT, no module or skill cache.
 */

import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  distFolder,
  floor,
  importPi,
  importSkillgate,
  runPi,
  skillgateCount,
  skillgateOptions,
} from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";
import { median, summary } from "./stats.mjs";

const WORKER = new URL("./cold-worker.mjs", import.meta.url).pathname;

/** The targets at 10,000 skills, from the issue. */
export const TARGETS = [
  { id: "first/pi", label: "skillgate in-process <= 1/4 of pi", limit: 0.25 },
  { id: "first/floor", label: "skillgate in-process <= 2x the floor", limit: 2 },
  { id: "repeat/pi", label: "skillgate repeat, unchanged <= 1/20 of pi", limit: 0.05 },
];
const TARGET_SIZE = 10_000;

/** A GC between measurements, so one contestant's garbage is not collected on another's clock. */
function garbageCollector() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc");
}

function expectCount(contestant, found, expected) {
  if (found !== expected) {
    throw new Error(`${contestant} found ${found} skills, expected ${expected}: the comparison is void`);
  }
}

function rotate(list, by) {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}

/** Times the three contestants in this process for one tree. */
async function inProcess(tree, count, rounds, repeats) {
  const skillgate = await importSkillgate();
  const pi = await importPi();
  const options = skillgateOptions(tree, count);
  const collect = garbageCollector();
  const times = { floor: [], pi: [], first: [], repeat: [] };
  const problems = { pi: 0, skillgate: 0 };
  const contestants = {
    floor: () => {
      const start = performance.now();
      const found = floor(tree);
      times.floor.push(performance.now() - start);
      expectCount("floor", found, count);
    },
    pi: () => {
      const start = performance.now();
      const outcome = runPi(pi, tree);
      times.pi.push(performance.now() - start);
      expectCount("pi", outcome.count, count);
      problems.pi = Math.max(problems.pi, outcome.problems);
    },
    skillgate: () => {
      const discovery = new skillgate.SkillDiscovery();
      let start = performance.now();
      let outcome = skillgateCount(discovery.discover(options));
      times.first.push(performance.now() - start);
      expectCount("skillgate", outcome.count, count);
      problems.skillgate = Math.max(problems.skillgate, outcome.problems);
      for (let index = 0; index < repeats; index += 1) {
        collect();
        start = performance.now();
        outcome = skillgateCount(discovery.discover(options));
        times.repeat.push(performance.now() - start);
        expectCount("skillgate repeat", outcome.count, count);
      }
    },
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const name of rotate(Object.keys(contestants), round)) {
      collect();
      contestants[name]();
    }
  }
  return {
    floor: summary(times.floor),
    pi: summary(times.pi),
    first: summary(times.first),
    repeat: summary(times.repeat),
    problems,
  };
}

/** Runs each contestant in fresh processes, alternating the order between rounds. */
function coldProcesses(tree, count, rounds) {
  const samples = { floor: [], pi: [], skillgate: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const name of rotate(Object.keys(samples), round)) {
      const start = performance.now();
      const child = spawnSync(process.execPath, ["--expose-gc", WORKER, name, tree, String(count)], {
        encoding: "utf8",
        env: process.env,
        maxBuffer: 1 << 20,
      });
      const wallMs = performance.now() - start;
      if (child.status !== 0) {
        throw new Error(`cold ${name} process failed (exit ${child.status}): ${child.stderr.trim()}`);
      }
      const report = JSON.parse(child.stdout.trim().split("\n").pop());
      expectCount(`cold ${name}`, report.count, count);
      samples[name].push({ ...report, wallMs });
    }
  }
  const digest = (list) => ({
    call: summary(list.map((item) => item.callMs)),
    wall: summary(list.map((item) => item.wallMs)),
    import: summary(list.map((item) => item.importMs)),
    rssAfterImport: median(list.map((item) => item.rssAfterImport)),
    maxRss: median(list.map((item) => item.maxRss)),
    heapBefore: median(list.map((item) => item.heapBefore)),
    heapAfter: median(list.map((item) => item.heapAfter)),
  });
  return { floor: digest(samples.floor), pi: digest(samples.pi), skillgate: digest(samples.skillgate) };
}

/** The SKILL.md bytes, which tell a reader what "reading every SKILL.md" amounts to. */
function skillFileBytes(generated) {
  let total = 0;
  for (const name of generated.names) total += statSync(join(generated.folder, name, "SKILL.md")).size;
  return total;
}

/**
 * Runs the benchmark for every size and returns the measurements; throws when a
 * contestant does not find exactly N skills.
 */
export async function runDiscoveryBenchmark({
  sizes,
  rounds = 7,
  repeats = 5,
  coldRounds = 5,
  log = () => {},
}) {
  const results = [];
  for (const count of sizes) {
    const generated = generateSkills(count);
    log(`${generated.reused ? "reusing" : "generated"} ${count} skills in ${generated.folder}`);
    const bytes = skillFileBytes(generated);
    log(`in-process: ${rounds} rounds x (floor, pi, skillgate first + ${repeats} repeats)`);
    const warm = await inProcess(generated.folder, count, rounds, repeats);
    log(`cold: ${coldRounds} rounds x 3 fresh processes`);
    const cold = coldProcesses(generated.folder, count, coldRounds);
    // Ratios of medians decide PASS/MISS; ratios of minimums (the least disturbed runs) are
    // shown beside them because this kind of machine is noisy.
    const pairs = {
      "first/pi": [warm.first, warm.pi],
      "first/floor": [warm.first, warm.floor],
      "repeat/pi": [warm.repeat, warm.pi],
      "repeat/floor": [warm.repeat, warm.floor],
      "pi/floor": [warm.pi, warm.floor],
      "cold call skillgate/pi": [cold.skillgate.call, cold.pi.call],
      "cold call skillgate/floor": [cold.skillgate.call, cold.floor.call],
      "cold wall skillgate/pi": [cold.skillgate.wall, cold.pi.wall],
    };
    const ratios = Object.fromEntries(
      Object.entries(pairs).map(([name, [top, bottom]]) => [
        name,
        { median: top.median / bottom.median, min: top.min / bottom.min },
      ]),
    );
    const targets = TARGETS.map((target) => ({
      ...target,
      ratio: ratios[target.id].median,
      ratioOfMinimums: ratios[target.id].min,
      pass: ratios[target.id].median <= target.limit,
    }));
    results.push({ count, skillFileBytes: bytes, rounds, repeats, coldRounds, warm, cold, ratios, targets });
  }
  return { dist: distFolder(), results };
}

const milliseconds = (value) =>
  `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;
const ratio = (value) => (value < 0.1 ? value.toFixed(3) : value.toFixed(2));
const megabytes = (value) => `${(value / 1024 / 1024).toFixed(1)} MB`;

function table(header, rows) {
  const widths = header.map((_, column) =>
    Math.max(...[header, ...rows].map((row) => String(row[column]).length)),
  );
  const line = (row) =>
    row
      .map((cell, column) =>
        column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]),
      )
      .join("  ");
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

/** Formats the measurements as plain-text tables with PASS/MISS lines. */
export function formatDiscoveryResults({ results }) {
  const out = [];
  for (const result of results) {
    const { warm, cold, ratios } = result;
    out.push(
      `## discovery, N = ${result.count.toLocaleString("en-US")} skills ` +
        `(SKILL.md total ${megabytes(result.skillFileBytes)}; ${result.rounds} in-process rounds, ` +
        `${result.repeats} repeats a round, ${result.coldRounds} cold processes each)`,
      "",
      "in-process (medians; each contestant's first call on fresh state, a GC before each)",
      table(
        ["contestant", "median", "min", "vs pi", "vs floor"],
        [
          ["floor: readdir + readFile", warm.floor, warm.floor],
          ["pi loadSkillsFromDir", warm.pi, warm.floor],
          ["skillgate first call (new SkillDiscovery)", warm.first, warm.floor],
          ["skillgate repeat, nothing changed", warm.repeat, warm.floor],
        ].map(([label, stats, floorStats]) => [
          label,
          milliseconds(stats.median),
          milliseconds(stats.min),
          ratio(stats.median / warm.pi.median),
          ratio(stats.median / floorStats.median),
        ]),
      ),
      "",
      "cold (fresh node process per sample; call = the discovery call timed inside, wall = whole process)",
      table(
        ["contestant", "call median", "call min", "wall median", "wall min", "import median"],
        [
          ["floor", cold.floor],
          ["pi", cold.pi],
          ["skillgate discoverSkills", cold.skillgate],
        ].map(([label, stats]) => [
          label,
          milliseconds(stats.call.median),
          milliseconds(stats.call.min),
          milliseconds(stats.wall.median),
          milliseconds(stats.wall.min),
          milliseconds(stats.import.median),
        ]),
      ),
      "",
      "memory (cold process, medians; heap after = after a GC with the result still held)",
      table(
        [
          "contestant",
          "rss after import",
          "peak rss",
          "peak - import",
          "heap before",
          "heap after",
          "heap held",
        ],
        [
          ["floor", cold.floor],
          ["pi", cold.pi],
          ["skillgate", cold.skillgate],
        ].map(([label, stats]) => [
          label,
          megabytes(stats.rssAfterImport),
          megabytes(stats.maxRss),
          megabytes(stats.maxRss - stats.rssAfterImport),
          megabytes(stats.heapBefore),
          megabytes(stats.heapAfter),
          megabytes(stats.heapAfter - stats.heapBefore),
        ]),
      ),
      "",
      table(
        ["ratio", "of medians", "of minimums"],
        Object.entries(ratios).map(([name, value]) => [name, ratio(value.median), ratio(value.min)]),
      ),
      "",
      result.count === TARGET_SIZE
        ? `targets at ${TARGET_SIZE.toLocaleString("en-US")}`
        : `targets (set at ${TARGET_SIZE.toLocaleString("en-US")}; shown here for reference only)`,
      ...result.targets.map(
        (target) =>
          `  ${target.pass ? "PASS" : "MISS"}  ${target.label.padEnd(44)} measured ${ratio(target.ratio)} ` +
          `(limit ${target.limit}; ratio of minimums ${ratio(target.ratioOfMinimums)})`,
      ),
      "",
    );
    if (warm.problems.pi > 0 || warm.problems.skillgate > 0) {
      out.push(`note: problems reported (pi ${warm.problems.pi}, skillgate ${warm.problems.skillgate})`, "");
    }
  }
  return out.join("\n");
}

/** True when a target measured at 10,000 skills was missed. */
export function missedTargets({ results }) {
  return results
    .filter((result) => result.count === TARGET_SIZE)
    .flatMap((result) => result.targets.filter((target) => !target.pass));
}
