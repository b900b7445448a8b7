/**
 * The catalog look every tool call makes, in a JavaScript project: a project with one skill
 * of its own and N installed npm packages that publish none (as most dependencies), settled
 * past the racy-file window. In one run, alternating:
 *
 * - skillgate: `catalog.discover()` on a catalog over the project, repeated with nothing
 *   changed (what `load_skill` pays before it reads anything);
 * - the floor: the least a look that notices a changed package needs, a bare loop that
 *   stats `node_modules` and each package's `package.json`, and lists the project's skills.
 *
 * Figures are medians of many looks; the ratio is the ratio of medians.
 * Run: `node bench/catalog-look.mjs [--packages 500] [--looks 400]` (BENCH_DIST for another build).
 */

import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { SETTLE_MS } from "./mcp.mjs";
import { median } from "./stats.mjs";

const { values } = parseArgs({
  options: { packages: { type: "string", default: "500" }, looks: { type: "string", default: "400" } },
});
const packageCount = Number(values.packages);
const looks = Number(values.looks);

const root = mkdtempSync(join(tmpdir(), "skillgate-bench-look-"));
try {
  const project = join(root, "project");
  const nodeModules = join(project, "node_modules");
  for (let index = 0; index < packageCount; index += 1) {
    const folder = join(nodeModules, `package-${index}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "package.json"),
      JSON.stringify({
        name: `package-${index}`,
        version: "1.0.0",
        description: "A dependency.",
        main: "index.js",
      }),
    );
  }
  const skills = join(project, ".agents", "skills");
  mkdirSync(join(skills, "own-skill"), { recursive: true });
  writeFileSync(
    join(skills, "own-skill", "SKILL.md"),
    "---\nname: own-skill\ndescription: The project's own skill.\n---\nDo the thing.\n",
  );
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

  const { createCatalog } = await import(pathToFileURL(join(distFolder(), "catalog", "catalog.js")).href);
  const catalog = createCatalog({
    config: join(root, "config"),
    data: join(root, "data"),
    home: join(root, "home"),
    roots: [project],
    builtins: false,
  });
  const floor = () => {
    statSync(nodeModules);
    for (const name of readdirSync(nodeModules)) statSync(join(nodeModules, name, "package.json"));
    for (const name of readdirSync(skills)) statSync(join(skills, name, "SKILL.md"));
  };
  const look = () => {
    if (catalog.discover().skills.length !== 1) throw new Error("skillgate found the wrong skills");
  };
  for (let index = 0; index < 20; index += 1) {
    floor();
    look();
  }
  const times = { floor: [], look: [] };
  for (let round = 0; round < looks; round += 1) {
    for (const [name, run] of round % 2 === 0
      ? [
          ["floor", floor],
          ["look", look],
        ]
      : [
          ["look", look],
          ["floor", floor],
        ]) {
      const started = performance.now();
      run();
      times[name].push(performance.now() - started);
    }
  }
  const floorMedian = median(times.floor);
  const lookMedian = median(times.look);
  console.log(
    `catalog look with ${packageCount} installed packages, ${looks} looks each, alternating; medians`,
  );
  console.log(
    `floor (stat node_modules and each package.json, list the skills): ${floorMedian.toFixed(2)} ms`,
  );
  console.log(`skillgate catalog.discover(), nothing changed:                  ${lookMedian.toFixed(2)} ms`);
  console.log(`ratio: ${(lookMedian / floorMedian).toFixed(2)}x`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
