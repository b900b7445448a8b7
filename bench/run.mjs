/**
 * Runs every benchmark (for now: discovery) against the built package and prints the
 * results. `npm run bench` builds first; `node bench/run.mjs --sizes 1000` is a quick run.
 * BENCH_DIST points at another build (e.g. a temp outDir). `--json FILE` also writes the
 * raw measurements. Targets are reported as PASS/MISS; the exit code is 0 either way,
 * and 1 only when the benchmark itself fails (e.g. a contestant found the wrong count).
 */

import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { formatDiscoveryResults, missedTargets, runDiscoveryBenchmark } from "./discovery.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    rounds: { type: "string", default: "7" },
    repeats: { type: "string", default: "5" },
    cold: { type: "string", default: "5" },
    json: { type: "string" },
  },
});

const sizes = values.sizes.split(",").map((size) => Number(size.trim()));
if (sizes.some((size) => !Number.isInteger(size) || size <= 0)) {
  console.error(`--sizes must be positive whole numbers separated by commas, got ${values.sizes}`);
  process.exit(2);
}

const log = (message) => console.error(`bench: ${message}`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const loadBefore = load();
try {
  const discovery = await runDiscoveryBenchmark({
    sizes,
    rounds: Number(values.rounds),
    repeats: Number(values.repeats),
    coldRounds: Number(values.cold),
    log,
  });
  const machine = `node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "unknown cpu"}), ${process.platform}`;
  console.log(`# skillgate benchmarks\n\nmachine: ${machine}\npackage: ${discovery.dist}`);
  console.log(`load average (1/5/15 min): ${loadBefore} before, ${load()} after\n`);
  console.log(formatDiscoveryResults(discovery));
  const missed = missedTargets(discovery);
  if (missed.length > 0) {
    console.log(
      `MISS: ${missed.length} target(s) missed at 10,000 skills: ${missed.map((target) => target.label).join("; ")}`,
    );
  } else if (sizes.includes(10_000)) {
    console.log("all targets at 10,000 skills met");
  }
  if (values.json !== undefined)
    writeFileSync(
      values.json,
      `${JSON.stringify({ machine, load: { before: loadBefore, after: load() }, ...discovery }, null, 2)}\n`,
    );
} catch (error) {
  console.error(`bench: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
