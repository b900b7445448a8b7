/**
 * A Lua skill's hot reload (issue 17), on the built package (dist/ or BENCH_DIST): the seed's
 * config-lint fixture copied to a fresh folder, its manifest read by the real loader, and one
 * `LuaSkillReloader` watching its files with the default debounce. Each round writes a new
 * version of the script (timed from just before the write) and waits for the index switch;
 * the reloader's step events are timed as they are published.
 *
 * Reported, as medians over the rounds: file change → switched index; the debounce part (file
 * change → the debounce settled: the notification's latency plus the quiet time, with the
 * configured quiet time and the wait the reloader itself measured); and the sequence after it
 * (parse manifest → … → switch index), step by step. 100 ms idle between rounds, so the
 * reloader is watching again. `node bench/capability-reload.mjs [rounds]`.
 */

import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

const FIXTURE = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "test",
  "fixtures",
  "capabilities",
  "config-lint",
);
/** The timed steps: the seed's sequence (RELOAD_STEPS) from parse_manifest up to the switch. */
function timedSteps(all) {
  return all.slice(all.indexOf("parse_manifest"), all.indexOf("switch_index") + 1);
}

async function importDist(path) {
  return import(pathToFileURL(join(distFolder(), path)).href);
}

function script(version) {
  return `VERSION = ${version}
function health_check(ctx) return { ok = true } end
function invoke(ctx, payload) return { summary = "v" .. VERSION, findings = {} } end
`;
}

/** Medians of each part of a reload over `rounds` file changes. */
export async function runReloadBenchmark({ rounds = 20, log = () => {} } = {}) {
  const { LuaSkillReloader, DEFAULT_RELOAD_DEBOUNCE_MS, RELOAD_STEPS } = await importDist(
    "capabilities/generations/hot-reload.js",
  );
  const { luaManifestLoader } = await importDist("capabilities/generations/lua-manifest-loader.js");
  const { DEFAULT_CAPABILITIES_CONFIG } = await importDist("config/capabilities-config.js");
  const root = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-bench-reload-")));
  cpSync(FIXTURE, root, { recursive: true });
  const manifestPath = join(root, "config/capabilities/config-lint-skill.yaml");
  const scriptPath = join(root, "config/skills/config_lint.lua");
  writeFileSync(scriptPath, script(0));
  let round;
  const reloader = new LuaSkillReloader({
    manifestPath,
    loadManifest: luaManifestLoader({
      scope: "config",
      paths: { base: root, home: root, allowedRoots: [root] },
      config: DEFAULT_CAPABILITIES_CONFIG,
    }),
    switchIndex: () => {
      if (round !== undefined) round.switched = performance.now();
    },
    publish: (event) => {
      if (round === undefined) return;
      if (event.topic === "/skill/reload/step") {
        round.steps[event.step] = performance.now();
        if (event.step === "debounce") round.waitedMs = event.waitedMs;
        if (event.step === "publish") round.done();
      }
      if (event.topic === "/skill/reload_failed")
        round.failed(new Error(`reload failed: ${event.code} ${event.detail}`));
    },
  });
  const outcome = await reloader.start();
  if (outcome.status !== "switched") throw new Error(`the first generation did not load: ${outcome.status}`);
  const results = [];
  try {
    log(`capability reload: ${rounds} file changes, debounce ${DEFAULT_RELOAD_DEBOUNCE_MS} ms`);
    for (let index = 1; index <= rounds; index += 1) {
      await sleep(100);
      const finished = new Promise((resolve, reject) => {
        round = { steps: {}, done: resolve, failed: reject };
      });
      round.written = performance.now();
      writeFileSync(scriptPath, script(index));
      await finished;
      results.push(round);
      round = undefined;
    }
  } finally {
    await reloader.stop();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
  const of = (pick) => median(results.map(pick));
  // Between consecutive step events (`load_state` and `bind_api` are published when the state
  // has compiled the script and when the prelude has bound the API, the others as they begin).
  const steps = {};
  const timed = timedSteps(RELOAD_STEPS);
  for (const [position, step] of timed.entries()) {
    const before = position === 0 ? "debounce" : timed[position - 1];
    steps[`${before} → ${step}`] = of((item) => item.steps[step] - item.steps[before]);
  }
  return {
    rounds,
    debounceMs: DEFAULT_RELOAD_DEBOUNCE_MS,
    totalMs: of((item) => item.switched - item.written),
    debouncePartMs: of((item) => item.steps.debounce - item.written),
    waitedMs: of((item) => item.waitedMs ?? Number.NaN),
    sequenceMs: of((item) => item.switched - item.steps.debounce),
    steps,
  };
}

/** The results as a Markdown table. */
export function formatReloadResults(result) {
  return [
    "| part of a reload | median ms |",
    "| --- | ---: |",
    `| file change → switched index | ${result.totalMs.toFixed(1)} |`,
    `| of which the debounce (file change → settled; quiet time ${result.debounceMs} ms, the reloader's own wait ${result.waitedMs.toFixed(1)} ms) | ${result.debouncePartMs.toFixed(1)} |`,
    `| of which the sequence (parse manifest → switch index) | ${result.sequenceMs.toFixed(2)} |`,
    ...Object.entries(result.steps).map(([interval, ms]) => `| · events ${interval} | ${ms.toFixed(2)} |`),
    "",
    `${result.rounds} file changes`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = await runReloadBenchmark({
    rounds: Number(process.argv[2] ?? 20),
    log: (line) => console.error(`bench: ${line}`),
  });
  console.log(formatReloadResults(result));
}
