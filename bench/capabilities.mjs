/**
 * The capability plane (issue 17), against the built package (dist/ or BENCH_DIST). In one run:
 *
 * - a no-op Lua capability: bare wasmoon, skillgate's Lua runtime alone, and the pipeline
 *   (bench/lua-overhead.mjs);
 * - the pipeline alone: `pipeline.invoke` of a no-op in-process provider (caller permission,
 *   router, payload guard, input schema, guard, output schema, audit and metrics, with a
 *   real audit log in a fresh data folder) against calling the same provider directly;
 * - a no-op `script` capability: a bare bwrap run of the script, skillgate's run path alone
 *   (`router.run`: hash check, snapshot, the sandbox runner) and `pipeline.invoke` through the
 *   script entry;
 * - a reload: file change to switched index, with the debounce apart (bench/capability-reload.mjs).
 *
 * Rounds alternate or rotate the contestants' order; figures are medians with minimums, and the
 * added time is the difference of the medians. The target (at most 0.5 ms added over bare
 * wasmoon for Lua) is reported PASS or MISS, never asserted.
 * Run alone: `node bench/capabilities.mjs [sandbox rounds] [reload rounds]`, or
 * `node bench/run.mjs --only capabilities`.
 */

import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { formatReloadResults, runReloadBenchmark } from "./capability-reload.mjs";
import { distFolder } from "./contestants.mjs";
import { formatLuaOverheadResults, measureContestants, runLuaOverheadBenchmark } from "./lua-overhead.mjs";
import { bareBwrapArgv } from "./sandbox-runs.mjs";
import { summary } from "./stats.mjs";

/** The target: the pipeline adds at most this much at the median. */
export const PIPELINE_TARGET_MS = 0.5;

async function importDist(path) {
  return import(pathToFileURL(join(distFolder(), path)).href);
}

const NO_PERMISSIONS = {
  fsRead: [],
  fsWrite: [],
  network: false,
  shell: false,
  env: [],
  adapterCapabilities: [],
};
const SCHEMA = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };

function descriptor(id, capability) {
  return {
    id,
    kind: "workflow_skill",
    source: "adapter-manifest",
    capabilities: [capability],
    runtimeGate: { allowedModes: ["normal"], disallowTeamWorker: true, requiresInteractiveUser: false },
    inputSchema: { kind: "inline", schema: SCHEMA },
    outputSchema: { kind: "inline", schema: { type: "object" } },
    permissions: NO_PERMISSIONS,
    trustLevel: "owner",
    priority: 0,
    limits: { timeoutMs: 30_000, maxConcurrency: 4 },
    manifestDigest: "0".repeat(64),
    metadata: {},
  };
}

function indexOf(providers) {
  return {
    revision: 1,
    providersOf: (capability) =>
      providers.filter((item) => item.descriptor.capabilities.includes(capability)),
    capabilities: () => providers.flatMap((item) => item.descriptor.capabilities),
  };
}

const CALLER = {
  kind: "cli",
  agentId: "bench",
  runtimeMode: "normal",
  interactive: false,
  scope: { kind: "job", id: "bench" },
};

/**
 * Times `bare()` and `viaPipeline()` in alternating order for `rounds` rounds (after `warm`
 * warm-up calls of each): medians, minimums, and the added time of the pipeline.
 */
export async function measureOverhead({ bare, viaPipeline, rounds, warm = 20 }) {
  for (let index = 0; index < warm; index += 1) {
    await bare();
    await viaPipeline();
  }
  const times = { bare: [], pipeline: [] };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ["bare", "pipeline"] : ["pipeline", "bare"];
    for (const name of order) {
      const started = performance.now();
      await (name === "bare" ? bare() : viaPipeline());
      times[name].push(performance.now() - started);
    }
  }
  const bareTime = summary(times.bare);
  const pipelineTime = summary(times.pipeline);
  return { bare: bareTime, pipeline: pipelineTime, addedMs: pipelineTime.median - bareTime.median, rounds };
}

/** Every measurement; `rounds` for the sandbox runs, forty times as many for the in-process ones. */
export async function runCapabilitiesBenchmark({ rounds = 30, reloadRounds = 20, log = () => {} } = {}) {
  const { CapabilityPipeline } = await importDist("capabilities/pipeline/invoke.js");
  const { scriptEntryProvider } = await importDist("capabilities/entries/script-entry.js");
  const { AuditLog } = await importDist("observe/audit-log.js");
  const { RunnerRouter } = await importDist("runners/router.js");
  const { SandboxRunner } = await importDist("runners/sandbox/index.js");
  const { SnapshotStore } = await importDist("runners/snapshot.js");
  const { hashSkillFolder } = await importDist("skill/content-hash.js");
  const parent = mkdtempSync(join(tmpdir(), "skillgate-bench-capabilities-"));
  const audit = new AuditLog({ dataFolder: join(parent, "data") });
  const sandbox = new SandboxRunner();
  try {
    log("capabilities: the pipeline around a no-op in-process provider");
    const noop = {
      descriptor: descriptor("noop", "bench.noop"),
      permissions: NO_PERMISSIONS,
      generation: 1,
      invoke: async () => ({}),
    };
    const inProcess = new CapabilityPipeline({ index: indexOf([noop]), audit });
    const context = {
      requestId: "r",
      traceId: "t",
      agentId: "bench",
      runtimeMode: "normal",
      signal: new AbortController().signal,
      permissions: NO_PERMISSIONS,
      touched: () => {},
    };
    const pipelineAlone = await measureOverhead({
      bare: () => noop.invoke({ n: 1 }, context),
      viaPipeline: async () => {
        const result = await inProcess.invoke({ capability: "bench.noop", payload: { n: 1 } }, CALLER);
        if (!result.ok) throw new Error(`pipeline refused: ${result.refusal.code}`);
      },
      rounds: rounds * 40,
      warm: 200,
    });

    log("capabilities: a no-op script capability: bare bwrap, the run path, the pipeline");
    const folder = join(parent, "skills", "bench-noop");
    mkdirSync(join(folder, "scripts"), { recursive: true });
    writeFileSync(
      join(folder, "SKILL.md"),
      "---\nname: bench-noop\ndescription: A no-op capability.\n---\nNothing.\n",
    );
    writeFileSync(join(folder, "scripts", "noop.py"), "print('{}')\n");
    const hash = hashSkillFolder(folder).hash;
    const router = new RunnerRouter({
      snapshots: new SnapshotStore({ dataFolder: join(parent, "data") }),
      runners: { sandbox },
    });
    const skill = {
      name: "bench-noop",
      folder,
      hash,
      execution: "sandbox",
      network: "none",
      allowedDomains: [],
    };
    const script = scriptEntryProvider({
      descriptor: descriptor("bench-noop", "bench.script"),
      permissions: NO_PERMISSIONS,
      skill,
      script: "scripts/noop.py",
      language: "python",
      runner: router,
    });
    const viaScript = new CapabilityPipeline({ index: indexOf([script]), audit });
    const request = {
      skill: "bench-noop",
      hash,
      folder,
      execution: "sandbox",
      script: "scripts/noop.py",
      language: "python",
      arguments: { n: 1 },
      limits: { timeoutMs: 31_000, maxOutputBytes: 1024 * 1024 },
      network: "none",
      allowedDomains: [],
    };
    // The bare run drops to nobody (as root) and reads the skill folder where it lies.
    chmodSync(parent, 0o755);
    const bareArgv = bareBwrapArgv({
      isRoot: process.getuid?.() === 0,
      snapshot: folder,
      command: ["python3", "/skill/scripts/noop.py"],
    });
    const scriptTimes = await measureContestants({
      rounds,
      warm: 3,
      pauseMs: 150,
      contestants: {
        bwrap: () => bareRun(bareArgv),
        router: async () => {
          const result = await router.run(request);
          if (result.status !== "ok") throw new Error(`bare run: ${result.status} ${result.message ?? ""}`);
        },
        pipeline: async () => {
          const result = await viaScript.invoke({ capability: "bench.script", payload: { n: 1 } }, CALLER);
          if (!result.ok) throw new Error(`pipeline refused: ${result.refusal.code}`);
        },
      },
    });
    const scriptRun = {
      bare: scriptTimes.router,
      pipeline: scriptTimes.pipeline,
      bwrap: scriptTimes.bwrap,
      addedMs: scriptTimes.pipeline.median - scriptTimes.router.median,
      rounds,
    };
    const lua = await runLuaOverheadBenchmark({ rounds: rounds * 40, log });
    const reload = await runReloadBenchmark({ rounds: reloadRounds, log });
    return { pipelineAlone, scriptRun, lua, reload };
  } finally {
    audit.close();
    await sandbox.close();
    rmSync(parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** A bare bwrap run: resolves when the script printed `{}` and exited 0. */
function bareRun(argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: "/usr/bin:/bin" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 && output.trim() === "{}" ? resolve() : reject(new Error(`bare bwrap: exit ${code}`)),
    );
  });
}

/** The results as a Markdown section with the targets' verdicts. */
export function formatCapabilitiesResults(benchmark) {
  const cell = (item) => `${item.median.toFixed(3)} ms (${item.min.toFixed(3)} min)`;
  const alone = benchmark.pipelineAlone;
  const script = benchmark.scriptRun;
  return [
    "## Capability plane (issue 17)",
    "",
    "### A no-op Lua capability",
    "",
    formatLuaOverheadResults(benchmark.lua, PIPELINE_TARGET_MS),
    "",
    "### The pipeline alone (a no-op in-process provider)",
    "",
    `bare ${cell(alone.bare)}, through the pipeline ${cell(alone.pipeline)}: ${alone.addedMs.toFixed(3)} ms added at the median (${alone.rounds} rounds)`,
    "",
    "### A no-op script capability in the sandbox",
    "",
    "| contestant | median (min) | / bare bwrap |",
    "| --- | --- | --- |",
    `| bare bwrap + python3 | ${cell(script.bwrap)} | 1.00x |`,
    `| skillgate's run path alone (RunnerRouter.run) | ${cell(script.bare)} | ${(script.bare.median / script.bwrap.median).toFixed(2)}x |`,
    `| invoke_capability's pipeline (script entry) | ${cell(script.pipeline)} | ${(script.pipeline.median / script.bwrap.median).toFixed(2)}x |`,
    "",
    `the pipeline over the run path: ${script.addedMs.toFixed(3)} ms at the median (${script.rounds} rounds)`,
    "",
    "### A reload",
    "",
    formatReloadResults(benchmark.reload),
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  const benchmark = await runCapabilitiesBenchmark({
    rounds,
    reloadRounds: Number(process.argv[3] ?? 20),
    log: (line) => console.error(`bench: ${line}`),
  });
  console.log(formatCapabilitiesResults(benchmark));
}
