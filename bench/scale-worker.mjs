/**
 * One scale-benchmark contestant in a fresh process (started by scale.mjs under
 * `--import bench/peak-rss.mjs`): `floor` lists each root and reads every SKILL.md; `pi`
 * runs pi's `loadSkillsFromDir` on each root as a user folder. Prints one JSON line: the
 * skills found, pi's diagnostics, and the time of the work itself (imports excluded).
 */

import { floor, importPi, runPi } from "./contestants.mjs";

const [contestant, ...roots] = process.argv.slice(2);
let run;
if (contestant === "floor") {
  run = () => ({ count: roots.reduce((sum, root) => sum + floor(root), 0), problems: 0 });
} else if (contestant === "pi") {
  const pi = await importPi();
  run = () =>
    roots.reduce(
      (total, root) => {
        const outcome = runPi(pi, root);
        return { count: total.count + outcome.count, problems: total.problems + outcome.problems };
      },
      { count: 0, problems: 0 },
    );
} else {
  throw new Error(`unknown contestant ${contestant}`);
}
const start = performance.now();
const outcome = run();
const callMs = performance.now() - start;
process.stdout.write(`${JSON.stringify({ contestant, ...outcome, callMs })}\n`);
