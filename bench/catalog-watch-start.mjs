/**
 * What starting the catalog watch costs at catalog scale (issue 12), in-process: the CPU
 * time (`process.cpuUsage`, user + system) of each start-up phase of a watched catalog over
 * a generated tree of `--count` skills (bench/generate.mjs), as `skillgate mcp` starts it.
 *
 * - discover: the first discovery (reads every SKILL.md), before any watch.
 * - watch start: `catalog.watch()` until it returns (what stands between the server and its
 *   first answer).
 * - first call: the `discover()` a first tool call makes right after.
 * - placement: from `watch()`'s return until start-up's work is done (`watch.ready`: every
 *   watch placed, every skill's first version stamped; older builds do it all inside
 *   `watch()`).
 *
 * Each run is a fresh child process (nothing cached in memory); with `--before <dist>` the
 * two builds alternate, run by run, so a loaded machine's noise falls on both alike. Medians
 * and the ratio of medians are printed. Never asserted.
 * Run: `node bench/catalog-watch-start.mjs [--count 10000] [--runs 5] [--before <dist>]`.
 */

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distFolder, skillgateOptions } from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";
import { summary } from "./stats.mjs";

const PHASES = ["discover", "watchStart", "firstCall", "placement"];

/** CPU milliseconds (user + system) since `start` (a `process.cpuUsage()` value). */
const cpuMs = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** One run in this process: the CPU of each phase, as JSON on stdout. */
async function worker(dist, count) {
  const { createCatalog } = await import(pathToFileURL(join(dist, "index.js")).href);
  const tree = generateSkills(count);
  const { folders, builtins, roots } = skillgateOptions(tree.folder, count);
  const catalog = createCatalog({ ...folders, builtins, roots });
  let mark = process.cpuUsage();
  const found = catalog.discover().skills.length;
  const discover = cpuMs(mark);
  mark = process.cpuUsage();
  const watch = catalog.watch({ intervalMs: 3_600_000 });
  const watchStart = cpuMs(mark);
  mark = process.cpuUsage();
  catalog.discover();
  const firstCall = cpuMs(mark);
  mark = process.cpuUsage();
  // The watch's slices never keep a process alive; this timer does, until they are done.
  const alive = setInterval(() => {}, 1000);
  await watch.ready;
  clearInterval(alive);
  const placement = cpuMs(mark);
  const watched = watch.status().watchedFolders;
  watch.stop();
  process.stdout.write(
    JSON.stringify({ found, folders: watched, discover, watchStart, firstCall, placement }),
  );
}

/** Runs the comparison; see the file's comment. */
export function runCatalogWatchStart({ count = 10_000, runs = 5, before, log = () => {} } = {}) {
  generateSkills(count);
  const builds = [{ label: "this build", dist: distFolder(), runs: [] }];
  if (before !== undefined) builds.push({ label: "before", dist: before, runs: [] });
  const self = fileURLToPath(import.meta.url);
  for (let run = 0; run < runs; run += 1) {
    const order = run % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const output = execFileSync(
        process.execPath,
        [self, "--worker", build.dist, "--count", String(count)],
        { encoding: "utf8", maxBuffer: 1 << 20 },
      );
      build.runs.push(JSON.parse(output));
    }
    log(`catalog-watch-start: ${run + 1}/${runs} runs`);
  }
  return builds.map((build) => ({
    label: build.label,
    found: build.runs[0]?.found,
    folders: build.runs[0]?.folders,
    ...Object.fromEntries(PHASES.map((phase) => [phase, summary(build.runs.map((one) => one[phase]))])),
  }));
}

/** The results as a markdown table (medians, with the ratio to "before" when it ran). */
export function formatCatalogWatchStart(results, count) {
  const before = results.find((result) => result.label === "before");
  const lines = [
    `| build | skills | watched folders | ${PHASES.join(" | ")} |`,
    `| --- | --- | --- | ${PHASES.map(() => "---").join(" | ")} |`,
  ];
  for (const result of results) {
    const cells = PHASES.map((phase) => {
      const median = result[phase].median;
      const ratio =
        before === undefined || result === before || before[phase].median === 0
          ? ""
          : ` (${(median / before[phase].median).toFixed(2)}x)`;
      return `${median.toFixed(0)} ms${ratio}`;
    });
    lines.push(
      `| ${result.label} | ${count} (${result.found} found) | ${result.folders} | ${cells.join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      worker: { type: "string" },
      count: { type: "string", default: "10000" },
      runs: { type: "string", default: "5" },
      before: { type: "string" },
    },
  });
  if (values.worker !== undefined) {
    await worker(values.worker, Number(values.count));
  } else {
    const count = Number(values.count);
    const results = runCatalogWatchStart({
      count,
      runs: Number(values.runs),
      ...(values.before !== undefined ? { before: values.before } : {}),
      log: (message) => console.error(`bench: ${message}`),
    });
    console.log(formatCatalogWatchStart(results, count));
  }
}
