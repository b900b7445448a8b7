/**
 * One contestant in a fresh process: imports what it needs, runs discovery once, and
 * prints one JSON line: skills found, import and call times, and memory. Started by
 * discovery.mjs with `--expose-gc`; not meant to be run by hand.
 *
 * Memory: `rssAfterImport` and `heapBefore` are taken after a GC once everything is
 * imported; `maxRss` is the process's peak resident set (includes the import);
 * `heapAfter` is taken after a GC with the result still referenced, so it is what
 * holding the discovered catalog costs.
 */

import { floor, importPi, importSkillgate, runPi, skillgateCount, skillgateOptions } from "./contestants.mjs";

const [contestant, tree, countText] = process.argv.slice(2);
const expected = Number(countText);
const collect = globalThis.gc ?? (() => {});

const importStart = performance.now();
let run;
if (contestant === "floor") {
  run = () => ({ count: floor(tree), problems: 0, result: undefined });
} else if (contestant === "pi") {
  const pi = await importPi();
  run = () => runPi(pi, tree);
} else if (contestant === "skillgate") {
  const skillgate = await importSkillgate();
  const options = skillgateOptions(tree, expected);
  run = () => {
    const result = skillgate.discoverSkills(options);
    return { ...skillgateCount(result), result };
  };
} else {
  throw new Error(`unknown contestant ${contestant}`);
}
const importMs = performance.now() - importStart;

collect();
const before = process.memoryUsage();
const callStart = performance.now();
const outcome = run();
const callMs = performance.now() - callStart;
collect();
const after = process.memoryUsage();
const maxRss = process.resourceUsage().maxRSS * 1024;

process.stdout.write(
  `${JSON.stringify({
    contestant,
    count: outcome.count,
    problems: outcome.problems,
    importMs,
    callMs,
    rssAfterImport: before.rss,
    maxRss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    // Referencing the result here keeps it alive through the GC above.
    kept: outcome.result === undefined ? 0 : 1,
  })}\n`,
);
