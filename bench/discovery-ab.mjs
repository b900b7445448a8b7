/**
 * Two builds of skillgate side by side in one process, for a change that must not slow
 * discovery: `node bench/discovery-ab.mjs <distA> <distB> [N] [rounds]`. Each round times
 * the first call of a new `SkillDiscovery` of each build on the generated tree of N
 * skills (order alternating, a GC before each), then the floor. It reports medians of
 * wall time and of CPU time (`process.cpuUsage`, user + system): on a loaded machine CPU
 * time is the steadier of the two, as time spent waiting for a core is not in it.
 */

import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { floor, skillgateCount, skillgateOptions } from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";
import { median } from "./stats.mjs";

const [distA, distB, countText = "10000", roundsText = "15"] = process.argv.slice(2);
if (distA === undefined || distB === undefined) {
  console.error("usage: node bench/discovery-ab.mjs <distA> <distB> [N] [rounds]");
  process.exit(2);
}
const count = Number(countText);
const rounds = Number(roundsText);
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");
const builds = [
  { label: distA, module: await import(pathToFileURL(join(resolve(distA), "index.js")).href) },
  { label: distB, module: await import(pathToFileURL(join(resolve(distB), "index.js")).href) },
];
const tree = generateSkills(count).folder;
const options = skillgateOptions(tree, count);

function timed(work) {
  collect();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const found = work();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { found, wall, cpu: (used.user + used.system) / 1000 };
}

const samples = new Map([...builds.map((build) => [build.label, []]), ["floor", []]]);
for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const run = timed(() => skillgateCount(new build.module.SkillDiscovery().discover(options)).count);
    if (run.found !== count) throw new Error(`${build.label} found ${run.found}, expected ${count}`);
    samples.get(build.label).push(run);
  }
  const run = timed(() => floor(tree));
  if (run.found !== count) throw new Error(`floor found ${run.found}, expected ${count}`);
  samples.get("floor").push(run);
}
const floorCpu = median(samples.get("floor").map((run) => run.cpu));
const floorWall = median(samples.get("floor").map((run) => run.wall));
console.log(`N = ${count}, ${rounds} rounds, first call of a new SkillDiscovery (floor: readdir + readFile)`);
for (const [label, runs] of samples) {
  const wall = median(runs.map((run) => run.wall));
  const cpu = median(runs.map((run) => run.cpu));
  console.log(
    `${label.padEnd(28)} wall ${wall.toFixed(0).padStart(5)} ms (${(wall / floorWall).toFixed(2)}x floor)  ` +
      `cpu ${cpu.toFixed(0).padStart(5)} ms (${(cpu / floorCpu).toFixed(2)}x floor)`,
  );
}
