/**
 * Runs every benchmark (discovery, the 100,000-skill scale run, runners, MCP, then the sandbox) against the
 * built package and prints the results. `npm run bench` builds first; `node bench/run.mjs --sizes 1000` is a
 * quick run; `--only discovery`, `--only scale`, `--only runners`, `--only mcp`, `--only http-api`,
 * `--only sandbox`, `--only mounts` (a run with a workspace and a package environment against
 * today's run and bare bwrap with the same mounts), `--only workspace` (a 1,000-file workspace,
 * read-only and writable with its walks), `--only environments` (a package environment build
 * against a bare pip install), `--only node-sync` (SkillSync of 200 skills against a bare
 * sha256sum + tar -xzf), `--only node-run` (a no-op run on a node agent against the local sandbox), `--only queue-local` (the local worker pool's round trip against the same file operations done bare), `--only queue-redis` (the Redis worker pool's round trip against a bare
 * BullMQ job plus a sandbox run, and its throughput with 1, 2 and 4 workers against bare bwrap;
 * needs redis-server) or `--only ui` (the web UI's first load in Chromium) runs one of
 * them (`--scale-total` and `--scale-rounds` size the scale run; `--http-rounds` and
 * `--http-seconds` the `/api/skills` run; `--mounts-rounds`, `--workspace-rounds` and
 * `--environment-rounds` the issue 13 runs; `--ui-rounds` the web UI run; `--only capabilities` the
 * capability plane: a no-op Lua and script capability through the pipeline against bare wasmoon and
 * bare bwrap, and a Lua skill's reload, `--capability-rounds` its sandbox rounds (forty times as many
 * Lua rounds), `--reload-rounds` its file changes; `--only capability-decisions` the capability
 * decisions of every skill at `--sizes`).
 * BENCH_DIST points at another build (e.g. a temp outDir). `--json FILE` also writes the
 * raw measurements. Targets are reported as PASS/MISS; the exit code is 0 either way,
 * and 1 only when the benchmark itself fails (e.g. a contestant found the wrong count).
 */

import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { formatDiscoveryResults, missedTargets, runDiscoveryBenchmark } from "./discovery.mjs";
import { formatHttpApiResults, httpApiTargetMet, runHttpApiBenchmark } from "./http-api.mjs";
import { formatMcpResults, mcpTargetsMet, runMcpBenchmark } from "./mcp.mjs";
import { formatRunnersResults, runnersTargetsMet, runRunnersBenchmark } from "./runners.mjs";
import { formatScaleResults, runScaleBenchmark } from "./scale.mjs";
import { formatStartupResults, runStartupBenchmark, startupTargetsMet } from "./startup.mjs";
import { formatUiLoadResults, runUiLoadBenchmark, uiTargetsMet } from "./ui-load.mjs";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    rounds: { type: "string", default: "7" },
    repeats: { type: "string", default: "5" },
    cold: { type: "string", default: "5" },
    "runner-rounds": { type: "string", default: "40" },
    "mcp-rounds": { type: "string", default: "200" },
    "startup-rounds": { type: "string", default: "15" },
    "environment-rounds": { type: "string", default: "5" },
    "node-sync-rounds": { type: "string", default: "5" },
    "node-run-rounds": { type: "string", default: "40" },
    "queue-redis-rounds": { type: "string", default: "30" },
    "queue-redis-runs": { type: "string", default: "60" },
    "mounts-rounds": { type: "string", default: "30" },
    "workspace-rounds": { type: "string", default: "30" },
    concurrency: { type: "string", default: "100" },
    "scale-total": { type: "string", default: "100000" },
    "scale-rounds": { type: "string", default: "3" },
    "http-rounds": { type: "string", default: "5" },
    "http-seconds": { type: "string", default: "5" },
    "ui-rounds": { type: "string", default: "9" },
    "queue-rounds": { type: "string", default: "30" },
    "capability-rounds": { type: "string", default: "30" },
    "reload-rounds": { type: "string", default: "20" },
    only: { type: "string" },
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
const only = values.only;
if (
  only !== undefined &&
  ![
    "discovery",
    "startup",
    "scale",
    "runners",
    "mcp",
    "http-api",
    "sandbox",
    "mounts",
    "workspace",
    "environments",
    "node-sync",
    "node-run",
    "queue-redis",
    "queue-local",
    "ui",
    "capabilities",
    "capability-decisions",
  ].includes(only)
) {
  console.error(
    `--only takes discovery, startup, scale, runners, mcp, http-api, sandbox, mounts, workspace, environments, node-sync, node-run, queue-redis, queue-local, capabilities, capability-decisions or ui, got ${only}`,
  );
  process.exit(2);
}
try {
  const machine = `node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "unknown cpu"}), ${process.platform}`;
  const raw = { machine };
  let discovery;
  if (only === undefined || only === "discovery") {
    discovery = await runDiscoveryBenchmark({
      sizes,
      rounds: Number(values.rounds),
      repeats: Number(values.repeats),
      coldRounds: Number(values.cold),
      log,
    });
    raw.discovery = discovery;
  }
  let startup;
  if (only === undefined || only === "startup") {
    startup = await runStartupBenchmark({ sizes, rounds: Number(values["startup-rounds"]), log });
    raw.startup = startup;
  }
  let scale;
  if (only === undefined || only === "scale") {
    scale = await runScaleBenchmark({
      total: Number(values["scale-total"]),
      rounds: Number(values["scale-rounds"]),
      log,
    });
    raw.scale = scale;
  }
  let runners;
  if (only === undefined || only === "runners") {
    runners = await runRunnersBenchmark({
      rounds: Number(values["runner-rounds"]),
      concurrency: Number(values.concurrency),
      log,
    });
    raw.runners = runners;
  }
  let mcp;
  if (only === undefined || only === "mcp") {
    mcp = await runMcpBenchmark({ rounds: Number(values["mcp-rounds"]), log });
    raw.mcp = mcp;
  }
  let httpApi;
  if (only === undefined || only === "http-api") {
    httpApi = await runHttpApiBenchmark({
      rounds: Number(values["http-rounds"]),
      seconds: Number(values["http-seconds"]),
      log,
    });
    raw.httpApi = httpApi;
  }
  let ui;
  if (only === undefined || only === "ui") {
    ui = await runUiLoadBenchmark({ rounds: Number(values["ui-rounds"]), log });
    raw.ui = ui;
  }
  let capabilityDecisions;
  if (only === undefined || only === "capability-decisions") {
    const { runCapabilityDecisionsBenchmark } = await import("./capability-decisions.mjs");
    capabilityDecisions = await runCapabilityDecisionsBenchmark({
      sizes,
      rounds: Number(values.rounds),
      log,
    });
    raw.capabilityDecisions = capabilityDecisions;
  }
  console.log(`# skillgate benchmarks\n\nmachine: ${machine}\npackage: ${distFolder()}`);
  const late =
    only === undefined ||
    [
      "sandbox",
      "mounts",
      "workspace",
      "environments",
      "node-sync",
      "node-run",
      "queue-redis",
      "queue-local",
      "capabilities",
    ].includes(only);
  console.log(`load average (1/5/15 min): ${loadBefore} before${late ? "" : `, ${load()} after`}\n`);
  if (discovery !== undefined) {
    console.log(formatDiscoveryResults(discovery));
    const missed = missedTargets(discovery);
    if (missed.length > 0) {
      console.log(
        `MISS: ${missed.length} target(s) missed at 10,000 skills: ${missed.map((target) => target.label).join("; ")}`,
      );
    } else if (sizes.includes(10_000)) {
      console.log("all targets at 10,000 skills met");
    }
  }
  if (startup !== undefined) {
    console.log(`\n${formatStartupResults(startup)}`);
    console.log(startupTargetsMet(startup) ? "start-up targets met" : "MISS: start-up targets");
  }
  if (scale !== undefined) console.log(`\n${formatScaleResults(scale)}`);
  if (runners !== undefined) {
    console.log(`\n${formatRunnersResults(runners)}`);
    console.log(runnersTargetsMet(runners) ? "runner overhead target met" : "MISS: runner overhead target");
  }
  if (mcp !== undefined) {
    console.log(`\n${formatMcpResults(mcp)}`);
    console.log(mcpTargetsMet(mcp) ? "MCP load_skill target met" : "MISS: MCP load_skill target");
  }
  if (httpApi !== undefined) {
    console.log(`\n${formatHttpApiResults(httpApi)}`);
    console.log(
      httpApiTargetMet(httpApi) ? "/api/skills throughput target met" : "MISS: /api/skills throughput target",
    );
  }
  if (capabilityDecisions !== undefined) {
    const { formatCapabilityDecisionsResults } = await import("./capability-decisions.mjs");
    console.log(`\n${formatCapabilityDecisionsResults(capabilityDecisions)}`);
  }
  if (ui !== undefined) {
    console.log(`\n${formatUiLoadResults(ui)}`);
    console.log(uiTargetsMet(ui) ? "web UI targets met" : "MISS: web UI targets");
  }
  if (only === undefined || only === "sandbox")
    console.log(`\n${await (await import("./sandbox.mjs")).sandboxReport({ log })}`);
  if (only === undefined || only === "mounts")
    console.log(
      `\n${await (await import("./mounts.mjs")).mountsReport({ rounds: Number(values["mounts-rounds"]), log })}`,
    );
  if (only === undefined || only === "workspace") {
    const { runWorkspaceBenchmark, formatWorkspaceResults } = await import("./workspace.mjs");
    const workspace = await runWorkspaceBenchmark({ rounds: Number(values["workspace-rounds"]), log });
    raw.workspace = workspace;
    console.log(`\n${formatWorkspaceResults(workspace)}`);
  }
  if (only === undefined || only === "environments") {
    const { runEnvironmentsBenchmark, formatEnvironmentsResults } = await import("./environments.mjs");
    const environments = await runEnvironmentsBenchmark({
      rounds: Number(values["environment-rounds"]),
      log,
    });
    raw.environments = environments;
    console.log(`\n${formatEnvironmentsResults(environments)}`);
  }
  if (only === undefined || only === "node-sync") {
    const { runNodeSyncBenchmark, formatNodeSyncResults } = await import("./node-sync.mjs");
    const nodeSync = await runNodeSyncBenchmark({ rounds: Number(values["node-sync-rounds"]), log });
    raw.nodeSync = nodeSync;
    console.log(`\n${formatNodeSyncResults(nodeSync)}`);
  }
  if (only === undefined || only === "node-run") {
    const { runNodeRunBenchmark, formatNodeRunResults, nodeRunTargetMet } = await import("./node-run.mjs");
    const nodeRun = await runNodeRunBenchmark({ rounds: Number(values["node-run-rounds"]), log });
    raw.nodeRun = nodeRun;
    console.log(`\n${formatNodeRunResults(nodeRun)}`);
    console.log(nodeRunTargetMet(nodeRun) ? "node run target met" : "MISS: node run target");
  }
  if (only === undefined || only === "queue-redis") {
    const { runQueueRedisBenchmark, formatQueueRedisResults } = await import("./queue-redis.mjs");
    const queueRedis = await runQueueRedisBenchmark({
      rounds: Number(values["queue-redis-rounds"]),
      runs: Number(values["queue-redis-runs"]),
      log,
    });
    raw.queueRedis = queueRedis;
    console.log(`\n${formatQueueRedisResults(queueRedis)}`);
  }
  if (only === undefined || only === "queue-local") {
    const { runQueueLocalBenchmark, formatQueueLocalResults } = await import("./queue-local.mjs");
    const queueLocal = await runQueueLocalBenchmark({ rounds: Number(values["queue-rounds"]), log });
    raw.queueLocal = { rounds: queueLocal.rounds, medians: queueLocal.medians, min: queueLocal.min };
    console.log(`\n${formatQueueLocalResults(queueLocal)}`);
  }
  if (only === undefined || only === "capabilities") {
    const { runCapabilitiesBenchmark, formatCapabilitiesResults } = await import("./capabilities.mjs");
    const capabilities = await runCapabilitiesBenchmark({
      rounds: Number(values["capability-rounds"]),
      reloadRounds: Number(values["reload-rounds"]),
      log,
    });
    raw.capabilities = capabilities;
    console.log(`\n${formatCapabilitiesResults(capabilities)}`);
  }
  // The header's "after" is read before the sandbox, mounts, workspace and environment runs print.
  if (late) console.log(`\nload average (1/5/15 min) after the last benchmark: ${load()}`);
  if (values.json !== undefined)
    writeFileSync(
      values.json,
      `${JSON.stringify({ load: { before: loadBefore, after: load() }, ...raw, ...(discovery ?? {}) }, null, 2)}\n`,
    );
} catch (error) {
  console.error(`bench: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
