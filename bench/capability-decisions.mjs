/**
 * What the capability plane adds to a catalog command: the descriptors and registration
 * decisions of every skill (`list`, `explain`, `doctor` show them), against the catalog's
 * own discovery they follow, on the generated trees (bench/generate.mjs). Both run in one
 * process on the built package, alternating, after a warm-up: the discovery is the kept one
 * (every file's stamp checked, nothing re-read), the capability step gets its result.
 * `node bench/run.mjs --only capability-decisions` (after `npm run build`).
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { distFolder, skillgateOptions } from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";
import { median } from "./stats.mjs";

async function importDist(path) {
  const entry = join(distFolder(), path);
  if (!existsSync(entry))
    throw new Error(`no built package at ${entry}: run \`npm run build\` or set BENCH_DIST`);
  return import(pathToFileURL(entry).href);
}

/** Medians of discovery and of the capability step after it, per tree size. */
export async function runCapabilityDecisionsBenchmark({ sizes, rounds, log }) {
  const { createCatalog } = await importDist("catalog/catalog.js");
  const { inspectCatalogCapabilities } = await importDist("capabilities/discover.js");
  const results = [];
  for (const size of sizes) {
    const { folder } = generateSkills(size);
    const options = skillgateOptions(folder, size);
    const catalog = createCatalog({ ...options.folders, builtins: false, roots: [] });
    let result = catalog.discover();
    inspectCatalogCapabilities(catalog, { project: false, discovery: result });
    const discovery = [];
    const capabilities = [];
    let decided = 0;
    for (let round = 0; round < rounds; round += 1) {
      let started = performance.now();
      result = catalog.discover();
      discovery.push(performance.now() - started);
      started = performance.now();
      decided = inspectCatalogCapabilities(catalog, { project: false, discovery: result }).decisions.length;
      capabilities.push(performance.now() - started);
    }
    if (decided !== result.decisions.length)
      throw new Error(`${decided} capability decisions for ${result.decisions.length} skills`);
    log(`capability decisions: ${size} skills done`);
    results.push({ size, discovery: median(discovery), capabilities: median(capabilities), rounds });
  }
  return results;
}

/** The results as BENCHMARKS.md prints them. */
export function formatCapabilityDecisionsResults(results) {
  const lines = [
    "## Capability decisions",
    "",
    "| skills | discovery (kept), median ms | + capability decisions, median ms | added / discovery |",
    "| --- | --- | --- | --- |",
  ];
  for (const item of results)
    lines.push(
      `| ${item.size} | ${item.discovery.toFixed(1)} | ${item.capabilities.toFixed(1)} | ${(item.capabilities / item.discovery).toFixed(2)} |`,
    );
  return lines.join("\n");
}
