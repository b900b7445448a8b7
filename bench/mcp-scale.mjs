/**
 * The MCP server at catalog scale (issue 12): in one run, against the built package (dist/ or
 * BENCH_DIST), `skillgate mcp` over stdio with the catalog watch on (as users run it) over a
 * small and a large catalog: the benchmark's own skills (setUp in mcp.mjs) plus a generated
 * tree of `--small` (10) or `--count` (10,000) skills as a configured user folder.
 *
 * - Idle CPU: after start-up and a warm-up, the CPU time (utime + stime from /proc/PID/stat)
 *   each server process spends over the same idle window of `--idle-seconds`, as a share of
 *   one core. Target: below 2 % at 10,000 skills.
 * - load_skill: rounds alternating the bare MCP server (mcp.mjs), the small and the large
 *   server, rotating their order; medians (minimums); ratios of medians. Target: the large
 *   catalog's median within 1.2x the small one's.
 * - Start-up: from spawn to the first answered `tools/list` and to the first answered
 *   `load_skill`, per server. With `--startup-runs N` (N > 0), N more fresh servers per build
 *   and catalog are started and stopped, builds alternating run by run, and the medians are
 *   reported with the ratio to "before".
 *
 * With `--before <dist>` a second build (say, the code before this change) is measured in
 * the same run, over the same trees and in the same rounds. Never asserted; PASS or MISS.
 * Run: `node bench/mcp-scale.mjs [--count 10000] [--rounds 300] [--idle-seconds 10] [--startup-runs 0] [--before <dist>]`.
 */

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { generateSkills } from "./generate.mjs";
import { BARE, importSdk, LOAD, SETTLE_MS, setUp, timedCall } from "./mcp.mjs";
import { summary } from "./stats.mjs";

/** Targets from issue 12. */
export const IDLE_CPU_TARGET = 0.02;
export const SCALE_RATIO_TARGET = 1.2;

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** CPU seconds (user + system) the process `pid` has used so far. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command (which may hold spaces) start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/** A stdio client of `args`, with the server's pid. */
async function connectStdio(sdk, args, env) {
  const client = new sdk.Client({ name: "skillgate-bench", version: "1.0.0" });
  const transport = new sdk.StdioClientTransport({ command: process.execPath, args, env, stderr: "ignore" });
  await client.connect(transport);
  return { client, pid: transport.pid, stop: () => client.close() };
}

/** A benchmark tree whose configuration adds the generated tree of `count` skills as a user folder. */
function catalogPlace(count) {
  const generated = generateSkills(count);
  const place = setUp();
  writeFileSync(
    join(place.config, "config.yaml"),
    `skills:\n  user_folders: [${JSON.stringify(generated.folder)}]\n`,
  );
  return { ...place, count };
}

/** Spawns `skillgate mcp` of `dist` over `place`: milliseconds from spawn to the first tools/list and load_skill answers. */
async function startServer(sdk, dist, place, env) {
  const started = performance.now();
  const main = join(dist, "surfaces", "cli", "main.js");
  const server = await connectStdio(sdk, [main, ...place.flags, "mcp"], { ...env, HOME: place.home });
  await server.client.listTools();
  const listMs = performance.now() - started;
  await timedCall(server.client, LOAD);
  return { server, listMs, startupMs: performance.now() - started };
}

/** `runs` fresh servers per build and catalog, builds alternating run by run: start-up medians. */
async function measureStartups(sdk, builds, places, env, runs, log) {
  const samples = new Map();
  for (let run = 0; run < runs; run += 1) {
    const order = run % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      for (const place of places) {
        const { server, listMs, startupMs } = await startServer(sdk, build.dist, place, env);
        await server.stop().catch(() => {});
        const key = `${build.label}\0${place.count}`;
        const sample = samples.get(key) ?? { build: build.label, skills: place.count, list: [], load: [] };
        sample.list.push(listMs);
        sample.load.push(startupMs);
        samples.set(key, sample);
      }
    }
    log(`mcp-scale: start-up ${run + 1}/${runs}`);
  }
  return [...samples.values()].map((sample) => ({
    ...sample,
    list: summary(sample.list),
    load: summary(sample.load),
  }));
}

/** Runs the benchmark; see the file's comment. */
export async function runMcpScaleBenchmark({
  count = 10_000,
  small = 10,
  rounds = 300,
  idleSeconds = 10,
  startupRuns = 0,
  before,
  log = () => {},
} = {}) {
  const sdk = await importSdk();
  const load = [loadavg()[0]];
  const places = [catalogPlace(small), catalogPlace(count)];
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: places[0].home };
  const builds = [{ label: "this build", dist: distFolder() }];
  if (before !== undefined) builds.push({ label: "before", dist: before });
  const servers = [];
  const bare = await connectStdio(
    sdk,
    [fileURLToPath(new URL("./mcp.mjs", import.meta.url)), "--bare-server", "stdio"],
    env,
  );
  try {
    const startups = startupRuns > 0 ? await measureStartups(sdk, builds, places, env, startupRuns, log) : [];
    for (const build of builds) {
      for (const place of places) {
        const { server, listMs, startupMs } = await startServer(sdk, build.dist, place, env);
        servers.push({ build: build.label, skills: place.count, listMs, startupMs, ...server, times: [] });
        log(
          `mcp-scale: ${build.label}, ${place.count} skills: tools/list in ${listMs.toFixed(0)} ms, load_skill in ${startupMs.toFixed(0)} ms`,
        );
      }
    }
    for (let round = 0; round < 20; round += 1) {
      await timedCall(bare.client, BARE);
      for (const server of servers) await timedCall(server.client, LOAD);
    }
    // Idle: every server over the same window, nothing called.
    const cpuBefore = servers.map((server) => cpuSeconds(server.pid));
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleWindow = (performance.now() - idleStarted) / 1000;
    servers.forEach((server, index) => {
      server.idleShare = (cpuSeconds(server.pid) - (cpuBefore[index] ?? 0)) / idleWindow;
    });
    load.push(loadavg()[0]);
    log(`mcp-scale: idle window ${idleWindow.toFixed(1)} s measured`);
    // load_skill: the bare server and every catalog server each round, order rotated.
    const contestants = [{ bare: true, times: [] }, ...servers];
    for (let round = 0; round < rounds; round += 1) {
      const shift = round % contestants.length;
      const order = [...contestants.slice(shift), ...contestants.slice(0, shift)];
      for (const contestant of order)
        contestant.times.push(
          await timedCall(contestant.bare ? bare.client : contestant.client, contestant.bare ? BARE : LOAD),
        );
      if ((round + 1) % 100 === 0) log(`mcp-scale: ${round + 1}/${rounds} rounds`);
    }
    load.push(loadavg()[0]);
    const bareTimes = summary(contestants[0].times);
    return {
      rounds,
      idleSeconds,
      load,
      bare: bareTimes,
      startups,
      servers: servers.map((server) => ({
        build: server.build,
        skills: server.skills,
        listMs: server.listMs,
        startupMs: server.startupMs,
        idleShare: server.idleShare,
        load: summary(server.times),
      })),
    };
  } finally {
    for (const server of servers) await server.stop().catch(() => {});
    await bare.stop().catch(() => {});
    for (const place of places) rmSync(place.root, { recursive: true, force: true, maxRetries: 2 });
  }
}

const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

/** The results as a markdown section. */
export function formatMcpScaleResults(result) {
  const lines = [
    "| build | skills | start-up: first tools/list, first load_skill | idle CPU (share of a core) | load_skill | vs the bare server | vs its own small catalog |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const server of result.servers) {
    const smallest = result.servers.find(
      (other) => other.build === server.build && other.skills < server.skills,
    );
    const scale = smallest === undefined ? undefined : server.load.median / smallest.load.median;
    lines.push(
      `| ${server.build} | ${server.skills} | ${ms(server.listMs)}, ${ms(server.startupMs)} | ${(server.idleShare * 100).toFixed(2)} %${server.skills >= 10_000 ? ` ${server.idleShare < IDLE_CPU_TARGET ? "PASS" : "MISS"} (< ${IDLE_CPU_TARGET * 100} %)` : ""} | ${ms(server.load.median)} (${ms(server.load.min)}) | ${(server.load.median / result.bare.median).toFixed(2)}x | ${scale === undefined ? "-" : `${scale.toFixed(2)}x ${scale <= SCALE_RATIO_TARGET ? "PASS" : "MISS"} (<= ${SCALE_RATIO_TARGET}x)`} |`,
    );
  }
  lines.push(
    "",
    `Bare MCP server (no-op tool, stdio): ${ms(result.bare.median)} (${ms(result.bare.min)}). ${result.rounds} rounds, order rotated; idle window ${result.idleSeconds} s; load average (1 min) at start, after the idle window, at the end: ${result.load.map((value) => value.toFixed(2)).join(", ")}.`,
  );
  if (result.startups.length > 0) lines.push("", ...formatStartups(result.startups));
  return lines.join("\n");
}

/** The start-up medians of `--startup-runs` as a markdown table, with ratios to "before". */
function formatStartups(startups) {
  const lines = [
    `Start-up, ${startups[0]?.list.samples ?? 0} fresh servers per build and catalog, builds alternating (median (min); ratio to "before"):`,
    "",
    "| build | skills | spawn to first tools/list answer | spawn to first load_skill answer |",
    "| --- | --- | --- | --- |",
  ];
  for (const startup of startups) {
    const before = startups.find((other) => other.build === "before" && other.skills === startup.skills);
    const cell = (field) => {
      const ratio =
        before === undefined || before === startup
          ? ""
          : `; ${(startup[field].median / before[field].median).toFixed(2)}x`;
      return `${ms(startup[field].median)} (${ms(startup[field].min)})${ratio}`;
    };
    lines.push(`| ${startup.build} | ${startup.skills} | ${cell("list")} | ${cell("load")} |`);
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      count: { type: "string", default: "10000" },
      small: { type: "string", default: "10" },
      rounds: { type: "string", default: "300" },
      "idle-seconds": { type: "string", default: "10" },
      "startup-runs": { type: "string", default: "0" },
      before: { type: "string" },
    },
  });
  const result = await runMcpScaleBenchmark({
    count: Number(values.count),
    small: Number(values.small),
    rounds: Number(values.rounds),
    idleSeconds: Number(values["idle-seconds"]),
    startupRuns: Number(values["startup-runs"]),
    ...(values.before !== undefined ? { before: values.before } : {}),
    log: (message) => console.error(`bench: ${message}`),
  });
  console.log(formatMcpScaleResults(result));
}
