/**
 * A no-op Lua capability (issue 17): the same Lua function `invoke(ctx, p) return { ok = true } end`
 * called three ways, on the built package (dist/ or BENCH_DIST), rounds alternating the order:
 *
 * - bare wasmoon: one engine (`createEngine`), the function fetched once and called with a JS
 *   payload (`fn({}, { n: 1 })`); wasmoon converts the payload and the result;
 * - skillgate's Lua runtime alone: `LuaRuntime.call` (a coroutine per call, the count hook,
 *   skillgate's own value conversion, the restricted host API's `ctx`), no pipeline;
 * - `invoke_capability`'s pipeline: `CapabilityPipeline.invoke` of the `lua_skill` provider
 *   (caller permission, router, payload guard, input schema, guard, the runtime, output
 *   schema, audit and metrics, with a real audit log in a fresh data folder);
 * - the turn's `invoke_capability` tool: `turn.call` of a Skillgate whose capability index holds
 *   the same provider (the broker's normalisation, tier and policy, its own audit lines, then the
 *   same pipeline on the Skillgate's audit log), for what a model's call costs in all.
 *
 * Added time is the difference of medians; the split says where it goes (runtime − bare,
 * pipeline − runtime). The target (≤ 0.5 ms added over bare wasmoon) is reported, never asserted.
 * Run alone: `node bench/lua-overhead.mjs [rounds]`, or through `bench/capabilities.mjs`.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { LuaFactory } from "wasmoon";
import { distFolder } from "./contestants.mjs";
import { summary } from "./stats.mjs";

const SOURCE = "function invoke(ctx, p) return { ok = true } end\n";
const NO_PERMISSIONS = {
  fsRead: [],
  fsWrite: [],
  network: false,
  shell: false,
  env: [],
  adapterCapabilities: [],
};
const CALLER = {
  kind: "cli",
  agentId: "bench",
  runtimeMode: "normal",
  interactive: false,
  scope: { kind: "job", id: "bench" },
};

async function importDist(path) {
  return import(pathToFileURL(join(distFolder(), path)).href);
}

/**
 * Times each contestant once per round, the order rotating every round, after `warm` calls
 * of each: a summary (median, min) per contestant. `pauseMs` of idle time after each timed
 * call (untimed) lets a sandbox runner's pool start its next sandbox, so no contestant
 * inherits the one before it's refill.
 */
export async function measureContestants({ contestants, rounds, warm = 200, pauseMs = 0 }) {
  const names = Object.keys(contestants);
  for (let index = 0; index < warm; index += 1) for (const name of names) await contestants[name]();
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let offset = 0; offset < names.length; offset += 1) {
      const name = names[(round + offset) % names.length];
      const started = performance.now();
      await contestants[name]();
      times[name].push(performance.now() - started);
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }
  return Object.fromEntries(names.map((name) => [name, summary(times[name])]));
}

function descriptor() {
  return {
    id: "bench-lua-noop",
    kind: "lua_skill",
    source: "capability-manifest",
    capabilities: ["bench.lua_noop"],
    runtimeGate: { allowedModes: ["normal"], disallowTeamWorker: true, requiresInteractiveUser: false },
    inputSchema: {
      kind: "inline",
      schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    },
    outputSchema: { kind: "inline", schema: { type: "object" } },
    permissions: NO_PERMISSIONS,
    trustLevel: "owner",
    priority: 0,
    limits: { timeoutMs: 30_000, maxConcurrency: 4 },
    manifestDigest: "0".repeat(64),
    metadata: {},
  };
}

/** The three contestants' summaries and the added times. */
export async function runLuaOverheadBenchmark({ rounds = 1200, log = () => {} } = {}) {
  const { CapabilityPipeline } = await importDist("capabilities/pipeline/invoke.js");
  const { LuaRuntime } = await importDist("capabilities/lua/lua-runtime.js");
  const { LuaCapabilityProvider } = await importDist("capabilities/lua/lua-provider.js");
  const { AuditLog } = await importDist("observe/audit-log.js");
  const { createSkillgate } = await importDist("app/skillgate.js");
  const { silentLogger } = await importDist("observe/logger.js");
  const parent = mkdtempSync(join(tmpdir(), "skillgate-bench-lua-"));
  const audit = new AuditLog({ dataFolder: join(parent, "data") });
  const engine = await new LuaFactory().createEngine({ enableProxy: false, injectObjects: false });
  const runtime = await LuaRuntime.create({ skill: "bench-lua-noop", source: SOURCE, chunkName: "noop.lua" });
  const closers = [];
  try {
    await engine.doString(SOURCE);
    const bareFunction = engine.global.get("invoke");
    const provider = new LuaCapabilityProvider(descriptor(), NO_PERMISSIONS, { entry: "invoke" }, runtime, 1);
    const index = {
      revision: 1,
      providersOf: (capability) => (capability === "bench.lua_noop" ? [provider] : []),
      capabilities: () => ["bench.lua_noop"],
    };
    const pipeline = new CapabilityPipeline({ index, audit });
    const skillgate = createSkillgate({
      config: join(parent, "config"),
      data: join(parent, "skillgate-data"),
      home: join(parent, "home"),
      roots: [],
      builtins: false,
      logger: silentLogger,
      capabilityIndex: index,
    });
    const turn = skillgate.createTurn({ chatId: "bench-lua" });
    closers.push(() => skillgate.close());
    const context = {
      requestId: "r",
      traceId: "t",
      agentId: "bench",
      runtimeMode: "normal",
      signal: new AbortController().signal,
      permissions: NO_PERMISSIONS,
      touched: () => {},
    };
    const callOptions = {
      context,
      timeoutMs: 30_000,
      roots: { read: [], write: [] },
      allowedCapabilities: [],
    };
    log("lua: a no-op Lua function: bare wasmoon, the Lua runtime, the pipeline, the turn's tool");
    const measured = await measureContestants({
      rounds,
      contestants: {
        bare: async () => {
          const answer = bareFunction({}, { n: 1 });
          if (answer?.ok !== true) throw new Error("bare wasmoon: unexpected answer");
        },
        runtime: async () => {
          const answer = await runtime.call("invoke", { n: 1 }, callOptions);
          if (answer?.ok !== true) throw new Error("runtime: unexpected answer");
        },
        pipeline: async () => {
          const result = await pipeline.invoke({ capability: "bench.lua_noop", payload: { n: 1 } }, CALLER);
          if (!result.ok) throw new Error(`pipeline refused: ${result.refusal.code}`);
        },
        turn: async () => {
          const result = await turn.call("invoke_capability", {
            capability: "bench.lua_noop",
            payload: { n: 1 },
          });
          if (result.status !== "ok") throw new Error(`invoke_capability: ${result.status} ${result.text}`);
        },
      },
    });
    return {
      ...measured,
      rounds,
      addedMs: measured.pipeline.median - measured.bare.median,
      runtimeAddedMs: measured.runtime.median - measured.bare.median,
      pipelineAddedMs: measured.pipeline.median - measured.runtime.median,
      turnAddedMs: measured.turn.median - measured.bare.median,
    };
  } finally {
    for (const close of closers) close();
    runtime.close();
    engine.global.close();
    audit.close();
    rmSync(parent, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** The results as a Markdown table. */
export function formatLuaOverheadResults(result, targetMs = 0.5) {
  const cell = (item) => `${item.median.toFixed(3)} ms (${item.min.toFixed(3)} min)`;
  return [
    "| no-op Lua function | median (min) | / bare |",
    "| --- | --- | --- |",
    `| bare wasmoon call | ${cell(result.bare)} | 1.00x |`,
    `| skillgate's Lua runtime alone (LuaRuntime.call) | ${cell(result.runtime)} | ${(result.runtime.median / result.bare.median).toFixed(2)}x |`,
    `| invoke_capability's pipeline (CapabilityPipeline.invoke) | ${cell(result.pipeline)} | ${(result.pipeline.median / result.bare.median).toFixed(2)}x |`,
    `| the turn's invoke_capability tool (turn.call: broker + pipeline) | ${cell(result.turn)} | ${(result.turn.median / result.bare.median).toFixed(2)}x |`,
    "",
    `added over bare wasmoon at the median: through the pipeline ${result.addedMs.toFixed(3)} ms (the runtime ${result.runtimeAddedMs.toFixed(3)} ms, the pipeline around it ${result.pipelineAddedMs.toFixed(3)} ms), target ≤ ${targetMs} ms: ${result.addedMs <= targetMs ? "PASS" : "MISS"}; through the turn's tool ${result.turnAddedMs.toFixed(3)} ms: ${result.turnAddedMs <= targetMs ? "PASS" : "MISS"}; ${result.rounds} rounds`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 1200);
  const result = await runLuaOverheadBenchmark({ rounds, log: (line) => console.error(`bench: ${line}`) });
  console.log(formatLuaOverheadResults(result));
}
