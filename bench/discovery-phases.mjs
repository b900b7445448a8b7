/**
 * Where skillgate's discovery time goes: times each phase of a first discovery and of a
 * repeat separately, by calling the built package's internal modules one phase at a
 * time over the same tree. A diagnostic tool, not part of `npm run bench`: it imports
 * internal files of dist/ (or BENCH_DIST) and breaks when they move.
 *
 * `node bench/discovery-phases.mjs [N]` (default 10000; the tree must fit the generator).
 */

import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { distFolder, floor, importSkillgate, skillgateOptions } from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";

const count = Number(process.argv[2] ?? 10_000);
const rounds = 7;
const internal = (path) => import(pathToFileURL(join(distFolder(), path)).href);
const { walkSkillsRoot } = await internal("catalog/walk.js");
const { readSkillFileText, readSkillFileHead, fileSignature } = await internal("skill/read-skill-file.js");
const { splitFrontMatter, parseFrontMatterYaml, parseWithYamlLibrary } =
  await internal("skill/front-matter.js");
const { parseSimpleFrontMatter } = await internal("skill/simple-yaml.js");
const { scanFrontMatter } = await internal("skill/front-matter-scanner.js");
const { loadSkillText, loadSkillHead } = await internal("skill/load-skill.js");
const { readSkillFields } = await internal("skill/fields.js");
const { readGovernance } = await internal("skill/governance.js");
const skillgate = await importSkillgate();

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");

const { folder: tree, names } = generateSkills(count);
const options = skillgateOptions(tree, count);
const realTree = realpathSync(tree);
const files = names.map((name) => join(tree, name, "SKILL.md"));
const texts = files.map((file) => readFileSync(file, "utf8"));
const yamls = texts.map((text) => splitFrontMatter(text).yaml);
const fallbackYamls = yamls.filter((yaml) => parseSimpleFrontMatter(yaml) === undefined);
const fallbacks = fallbackYamls.length;
const simpleIndexes = yamls.flatMap((yaml, index) =>
  parseSimpleFrontMatter(yaml) === undefined ? [] : [index],
);
const parsed = yamls.map((yaml) => parseFrontMatterYaml(yaml).data);
const heads = files.map((file) => readSkillFileHead(file));
const scannerMisses = yamls.filter((yaml) => scanFrontMatter(yaml) === undefined).length;
const bodies = texts.map((text) => splitFrontMatter(text).body);

const phases = {
  "floor: readdir + readFileSync": () => floor(tree),
  "walk only (probe = lstat SKILL.md)": () =>
    walkSkillsRoot(
      tree,
      [realTree],
      (directory) => lstatSync(join(directory, "SKILL.md"), { throwIfNoEntry: false }) !== undefined,
    ),
  "readdir + lstat + fileSignature (repeat's I/O)": () => {
    for (const entry of readdirSync(tree, { withFileTypes: true })) {
      fileSignature(lstatSync(join(tree, entry.name, "SKILL.md")));
    }
  },
  "readSkillFileText x N (O_NOFOLLOW, fstat, decode)": () => {
    for (const file of files) readSkillFileText(file);
  },
  "readSkillFileHead x N (same checks, front matter decoded)": () => {
    for (const file of files) readSkillFileHead(file);
  },
  "splitFrontMatter x N": () => {
    for (const text of texts) splitFrontMatter(text);
  },
  "parseSimpleFrontMatter x N (line-based fast path only)": () => {
    for (const yaml of yamls) parseSimpleFrontMatter(yaml);
  },
  "scanFrontMatter x N (one-pass scanner only)": () => {
    for (const yaml of yamls) scanFrontMatter(yaml);
  },
  "parseFrontMatterYaml x N (fast path + yaml fallback)": () => {
    for (const yaml of yamls) parseFrontMatterYaml(yaml);
  },
  [`parseWithYamlLibrary, the ${fallbacks} fallbacks only`]: () => {
    for (const yaml of fallbackYamls) parseWithYamlLibrary(yaml);
  },
  "readSkillFields + readGovernance x N": () => {
    for (let index = 0; index < names.length; index += 1) {
      const path = files[index];
      const fields = readSkillFields(parsed[index], {
        folderName: names[index],
        path,
        mode: "lenient",
        hasFrontMatter: true,
        body: bodies[index],
      }).fields;
      readGovernance(fields.metadata, { path, mode: "lenient" });
    }
  },
  [`loadSkillText, the ${count - fallbacks} fast-path skills only`]: () => {
    for (const index of simpleIndexes)
      loadSkillText(texts[index], join(tree, names[index]), { source: "config" });
  },
  "loadSkillHead x N (discovery's load: parse, fields, governance, Skill)": () => {
    for (let index = 0; index < heads.length; index += 1) {
      const directory = join(tree, names[index]);
      loadSkillHead(heads[index], directory, files[index], { source: "config" });
    }
  },
  "loadSkillText x N (split, parse, fields, governance, Skill)": () => {
    for (let index = 0; index < texts.length; index += 1) {
      loadSkillText(texts[index], join(tree, names[index]), { source: "config" });
    }
  },
  "discover: first call (new SkillDiscovery)": () => new skillgate.SkillDiscovery().discover(options),
};
const repeatDiscovery = new skillgate.SkillDiscovery();
repeatDiscovery.discover(options);
phases["discover: repeat, nothing changed"] = () => repeatDiscovery.discover(options);

// Wall time, and the process's CPU time beside it: on a shared machine the CPU time is
// the steadier of the two (it leaves out time spent waiting for a core).
const cpuNow = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const samples = Object.fromEntries(Object.keys(phases).map((name) => [name, []]));
const cpuSamples = Object.fromEntries(Object.keys(phases).map((name) => [name, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const [name, run] of Object.entries(phases)) {
    collect();
    const cpuStart = cpuNow();
    const start = performance.now();
    run();
    samples[name].push(performance.now() - start);
    cpuSamples[name].push(cpuNow() - cpuStart);
  }
}

const median = (values) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)];
const floorMedian = median(samples["floor: readdir + readFileSync"]);
const floorCpuMedian = median(cpuSamples["floor: readdir + readFileSync"]);
console.log(
  `discovery phases, N = ${count}, ${rounds} rounds, medians; ${fallbacks} of ${count} front matters need the yaml library, ${scannerMisses} the line-based fast path`,
);
const width = Math.max(...Object.keys(phases).map((name) => name.length));
console.log(
  `${"phase".padEnd(width)}  ${"median".padStart(9)}  ${"us/item".padStart(8)}  ${"vs floor".padStart(8)}  ${"cpu".padStart(9)}  ${"vs floor".padStart(8)}`,
);
const itemsOf = (name) =>
  name.includes("fallbacks only")
    ? fallbacks
    : name.includes("fast-path skills only")
      ? count - fallbacks
      : count;
for (const [name, values] of Object.entries(samples)) {
  const value = median(values);
  const cpu = median(cpuSamples[name]);
  const items = itemsOf(name);
  console.log(
    `${name.padEnd(width)}  ${`${value.toFixed(1)} ms`.padStart(9)}  ${((value * 1000) / items).toFixed(1).padStart(8)}  ${(value / floorMedian).toFixed(2).padStart(8)}  ${`${cpu.toFixed(1)} ms`.padStart(9)}  ${(cpu / floorCpuMedian).toFixed(2).padStart(8)}`,
  );
}
