/**
 * The capability plane's invocation pipeline (issue 17), against the built package (dist/ or
 * BENCH_DIST). In one run:
 *
 * - the pipeline alone: `pipeline.invoke` of a no-op in-process provider (caller permission,
 *   router, payload guard, input schema, guard, output schema, audit and metrics, with a
 *   real audit log in a fresh data folder) against calling the same provider directly;
 * - a no-op `script` capability: `pipeline.invoke` through the script entry and the runner
 *   router into the bubblewrap sandbox, against a bare `router.run` of the same script.
 *
 * Lua (a no-op `lua_skill` against a bare wasmoon call) is measured with the same
 * {@link measureOverhead} once the Lua runtime is in the build; without it the row says so.
 * Rounds alternate the contestants' order; figures are medians with minimums, and the added
 * time is the difference of the medians. The target (at most 0.5 ms added for Lua, and here
 * for the pipeline alone) is reported PASS or MISS, never asserted.
 * Run alone: `node bench/capabilities.mjs [rounds]`, or `node bench/run.mjs --only capabilities`.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { summary } from "./stats.mjs";

/** The issue's target: the pipeline adds at most this much at the median. */
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

/** Both measurements; `rounds` for the sandbox runs, forty times as many for the in-process one. */
export async function runCapabilitiesBenchmark({ rounds = 30, log = () => {} } = {}) {
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

    log("capabilities: a no-op script capability in the sandbox against a bare router run");
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
    const scriptRun = await measureOverhead({
      bare: async () => {
        const result = await router.run(request);
        if (result.status !== "ok") throw new Error(`bare run: ${result.status} ${result.message ?? ""}`);
      },
      viaPipeline: async () => {
        const result = await viaScript.invoke({ capability: "bench.script", payload: { n: 1 } }, CALLER);
        if (!result.ok) throw new Error(`pipeline refused: ${result.refusal.code}`);
      },
      rounds,
      warm: 3,
    });
    const lua = await luaMeasurement({ rounds: rounds * 40, audit, log });
    return { pipelineAlone, scriptRun, lua };
  } finally {
    audit.close();
    await sandbox.close();
    rmSync(parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** The Lua row: measured when the build has the Lua runtime's bench hook, else `undefined`. */
async function luaMeasurement({ rounds, audit, log }) {
  let hook;
  try {
    hook = await importDist("capabilities/lua/bench-hook.js");
  } catch {
    return undefined;
  }
  log("capabilities: a no-op Lua capability against a bare wasmoon call");
  return hook.measureLuaOverhead({ rounds, audit, measureOverhead });
}

/** The results as a Markdown section with the target's verdict. */
export function formatCapabilitiesResults(benchmark) {
  const row = (label, measured) =>
    `| ${label} | ${measured.bare.median.toFixed(3)} ms (${measured.bare.min.toFixed(3)} min) | ${measured.pipeline.median.toFixed(3)} ms (${measured.pipeline.min.toFixed(3)} min) | ${measured.addedMs.toFixed(3)} ms | ${(measured.pipeline.median / measured.bare.median).toFixed(2)}x | ${measured.rounds} |`;
  const verdict = (measured) => (measured.addedMs <= PIPELINE_TARGET_MS ? "PASS" : "MISS");
  return [
    "## Capability plane: the invocation pipeline",
    "",
    "| contestant | bare | through the pipeline | added (median) | ratio | rounds |",
    "| --- | --- | --- | --- | --- | --- |",
    row("no-op in-process provider (pipeline alone)", benchmark.pipelineAlone),
    row("no-op script capability, sandbox", benchmark.scriptRun),
    benchmark.lua === undefined
      ? "| no-op Lua capability vs bare wasmoon | not in this build | | | | |"
      : row("no-op Lua capability vs bare wasmoon", benchmark.lua),
    "",
    `target, at most ${PIPELINE_TARGET_MS} ms added: pipeline alone ${verdict(benchmark.pipelineAlone)}${benchmark.lua === undefined ? "" : `; Lua ${verdict(benchmark.lua)}`}`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 30);
  const benchmark = await runCapabilitiesBenchmark({
    rounds,
    log: (line) => console.error(`bench: ${line}`),
  });
  console.log(formatCapabilitiesResults(benchmark));
}
