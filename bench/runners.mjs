/**
 * The runner benchmark (issue 5). In one run, against the built package (dist/ or BENCH_DIST):
 *
 * - a no-op Python and a no-op Node script of a trusted `local` skill through the whole tool
 *   path: `turn.call("run_skill_script", …)` from createSkillgate (arguments → classify →
 *   policy, here an "always" grant of the chat → hash check → snapshot → local runner), with
 *   the default audit log and chat database in a fresh data folder;
 * - against a bare `spawn` of the same interpreter with the same arguments on the same
 *   script, stdin written and closed, output collected;
 * - the snapshot of the unchanged skill: made once, then reused (its inode never changes);
 * - 100 concurrent runs through the tool path, against 100 concurrent bare spawns.
 *
 * Rounds alternate the contestants' order to spread noise; figures are medians with
 * minimums. The target (local overhead at most 5 ms at the median) is reported as PASS or
 * MISS, never asserted. Run alone: `node bench/runners.mjs [--rounds 40] [--concurrency 100]`.
 */

import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { median, summary } from "./stats.mjs";

/** The target from the issue: the tool path adds at most this much at the median. */
export const OVERHEAD_TARGET_MS = 5;

const SKILLS = [
  { name: "bench-py", language: "python", script: "scripts/noop.py", text: "" },
  { name: "bench-node", language: "node", script: "scripts/noop.mjs", text: "" },
];
const ARGUMENTS = { action: "noop", n: 1 };

async function importDist(path) {
  return import(pathToFileURL(join(distFolder(), path)).href);
}

/** A bare spawn: the interpreter, the script, the arguments on stdin; resolves when it closed. */
function bareRun(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", () => {});
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`bare run exited ${code}`))));
    child.stdin.end(JSON.stringify(ARGUMENTS));
  });
}

function setUp() {
  const root = mkdtempSync(join(tmpdir(), "skillgate-bench-runners-"));
  const config = join(root, "config");
  const data = join(root, "data");
  const project = join(root, "project");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.yaml"),
    `runners:\n  local:\n    trusted: [${SKILLS.map((skill) => skill.name).join(", ")}]\n`,
  );
  const folders = {};
  for (const skill of SKILLS) {
    const folder = join(project, ".agents", "skills", skill.name);
    mkdirSync(join(folder, "scripts"), { recursive: true });
    writeFileSync(
      join(folder, "SKILL.md"),
      `---\nname: ${skill.name}\ndescription: A no-op ${skill.language} script for the runner benchmark.\nmetadata:\n  skillgate.execution: local\n---\nRun ${skill.script}.\n`,
    );
    writeFileSync(join(folder, skill.script), skill.text);
    folders[skill.name] = folder;
  }
  return { root, config, data, project, folders };
}

/**
 * Runs the benchmark. `rounds` timed runs per contestant and language (after a warm-up),
 * then one batch of `concurrency` runs at once for each contestant.
 */
export async function runRunnersBenchmark({ rounds = 40, concurrency = 100, log = () => {} } = {}) {
  const { createSkillgate } = await importDist("app/skillgate.js");
  const { interpreterPath } = await importDist("runners/languages.js");
  const { SnapshotStore } = await importDist("runners/snapshot.js");
  const { hashSkillFolder } = await importDist("skill/content-hash.js");
  const place = setUp();
  const skillgate = createSkillgate({
    config: place.config,
    data: place.data,
    roots: [place.project],
    builtins: false,
    useStore: false,
    approve: async (request) => (request.options.includes("always-chat") ? "always-chat" : "once"),
  });
  const bareCwd = mkdtempSync(join(place.root, "bare-"));
  try {
    const turn = skillgate.createTurn({ chatId: "bench" });
    const toolRun = async (skill) => {
      const answer = await turn.call("run_skill_script", {
        skill: skill.name,
        script: skill.script,
        arguments: ARGUMENTS,
      });
      if (answer.status !== "ok") throw new Error(`${skill.name}: ${answer.status}: ${answer.text}`);
    };
    const commands = {
      python: [interpreterPath("python3"), "-B"],
      node: [interpreterPath("node")],
    };
    const bare = (skill) => {
      const [command, ...flags] = commands[skill.language];
      return bareRun(command, [...flags, join(place.folders[skill.name], skill.script)], bareCwd);
    };

    // Warm-up: the first call asks (answered "always"), makes the snapshot and opens the
    // chat database; none of that is in the timed rounds.
    const snapshotFiles = {};
    for (const skill of SKILLS) {
      await toolRun(skill);
      await bare(skill);
      const hash = hashSkillFolder(place.folders[skill.name]).hash;
      snapshotFiles[skill.name] = join(place.data, "runs", "snapshots", hash, skill.script);
    }
    const inodesBefore = Object.fromEntries(
      Object.entries(snapshotFiles).map(([name, file]) => [name, lstatSync(file).ino]),
    );

    const times = {};
    for (const skill of SKILLS) times[skill.name] = { tool: [], bare: [], paired: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const skill of SKILLS) {
        const order = round % 2 === 0 ? ["bare", "tool"] : ["tool", "bare"];
        const taken = {};
        for (const contestant of order) {
          const started = performance.now();
          if (contestant === "tool") await toolRun(skill);
          else await bare(skill);
          taken[contestant] = performance.now() - started;
          times[skill.name][contestant].push(taken[contestant]);
        }
        // Back to back, so a burst of load on a shared machine hits both of the pair.
        times[skill.name].paired.push(taken.tool - taken.bare);
      }
      if ((round + 1) % 10 === 0) log(`runners: ${round + 1}/${rounds} rounds`);
    }

    // Where the tool path's own time goes, without a process: verifying and reusing a snapshot.
    const python = SKILLS[0];
    const store = new SnapshotStore({ dataFolder: place.data });
    const reuse = [];
    const hashOnly = [];
    for (let index = 0; index < rounds; index += 1) {
      const skill = SKILLS[index % SKILLS.length];
      const folder = place.folders[skill.name];
      let started = performance.now();
      const hash = hashSkillFolder(folder).hash;
      hashOnly.push(performance.now() - started);
      started = performance.now();
      const outcome = store.prepare({ skill: skill.name, hash, folder, script: skill.script });
      reuse.push(performance.now() - started);
      if (!outcome.ok || !outcome.snapshot.reused) throw new Error("the snapshot was not reused");
      store.release(outcome.snapshot);
    }

    // The tool path's own time with a runner that returns at once: arguments, classification,
    // policy with the grant, the audit log and the chat database, without any process.
    const instant = createSkillgate({
      config: place.config,
      data: join(place.root, "instant-data"),
      roots: [place.project],
      builtins: false,
      useStore: false,
      approve: async () => "always-chat",
      runner: {
        run: async () => ({
          status: "ok",
          exitCode: 0,
          stdout: "",
          stderr: "",
          stdoutTruncated: false,
          stderrTruncated: false,
          durationMs: 0,
        }),
      },
    });
    const pathOnly = [];
    try {
      const instantTurn = instant.createTurn({ chatId: "bench" });
      const call = () =>
        instantTurn.call("run_skill_script", {
          skill: python.name,
          script: python.script,
          arguments: ARGUMENTS,
        });
      await call();
      for (let index = 0; index < rounds * 5; index += 1) {
        const begun = performance.now();
        await call();
        pathOnly.push(performance.now() - begun);
      }
    } finally {
      instant.close();
    }

    log(`runners: ${concurrency} concurrent runs`);
    let started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, () => bare(python)));
    const bareConcurrent = performance.now() - started;
    started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, () => toolRun(python)));
    const toolConcurrent = performance.now() - started;

    const inodesAfter = Object.fromEntries(
      Object.entries(snapshotFiles).map(([name, file]) => [name, lstatSync(file).ino]),
    );
    const snapshotsMade = readdirSync(join(place.data, "runs", "snapshots")).filter((name) =>
      /^[0-9a-f]{64}$/.test(name),
    ).length;
    const workLeft = readdirSync(join(place.data, "runs", "work")).length;
    const results = {};
    for (const skill of SKILLS) {
      const tool = summary(times[skill.name].tool);
      const bareTimes = summary(times[skill.name].bare);
      results[skill.name] = {
        language: skill.language,
        tool,
        bare: bareTimes,
        overheadMs: median(times[skill.name].paired),
        medianDifferenceMs: tool.median - bareTimes.median,
      };
    }
    return {
      rounds,
      concurrency,
      results,
      snapshot: {
        made: snapshotsMade,
        skills: SKILLS.length,
        reused: Object.keys(inodesBefore).every((name) => inodesBefore[name] === inodesAfter[name]),
        runs: SKILLS.length * (rounds + 1) + concurrency,
        hashMs: summary(hashOnly),
        pathOnlyMs: summary(pathOnly),
        verifyAndReuseMs: summary(reuse),
      },
      concurrent: { toolMs: toolConcurrent, bareMs: bareConcurrent, workFoldersLeft: workLeft },
    };
  } finally {
    skillgate.close();
    rmSync(place.root, { recursive: true, force: true, maxRetries: 2 });
  }
}

const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

/** The results as a markdown section. */
export function formatRunnersResults(result) {
  const lines = [
    "## Runners",
    "",
    `${result.rounds} rounds per contestant and language, order alternated; medians (min). The overhead is the`,
    "median of the differences of back-to-back pairs (tool path minus bare spawn).",
    "",
    "| no-op script | bare spawn | whole tool path | overhead (median of pairs) | difference of medians | target |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const [name, entry] of Object.entries(result.results)) {
    lines.push(
      `| ${entry.language} (${name}) | ${ms(entry.bare.median)} (${ms(entry.bare.min)}) | ${ms(entry.tool.median)} (${ms(entry.tool.min)}) | ${ms(entry.overheadMs)} | ${ms(entry.medianDifferenceMs)} | ${entry.overheadMs <= OVERHEAD_TARGET_MS ? "PASS" : "MISS"} (<= ${OVERHEAD_TARGET_MS} ms) |`,
    );
  }
  const snapshot = result.snapshot;
  lines.push(
    "",
    `Snapshots: ${snapshot.made} made for ${snapshot.skills} skills over ${snapshot.runs} runs; ` +
      `${snapshot.reused ? "reused, not re-copied (the snapshot's file kept its inode)" : "NOT reused"}. ` +
      `Hashing the live skill: ${ms(snapshot.hashMs.median)}; hashing it, checking its files and verifying and reusing its snapshot: ${ms(snapshot.verifyAndReuseMs.median)}. ` +
      `The tool path with a runner that returns at once (arguments, classification, policy, grant, audit log, chat database): ${ms(snapshot.pathOnlyMs.median)} (${ms(snapshot.pathOnlyMs.min)}).`,
    "",
    `${result.concurrency} concurrent Python runs: whole tool path ${ms(result.concurrent.toolMs)}, bare spawns ${ms(result.concurrent.bareMs)} ` +
      `(${(result.concurrent.toolMs / result.concurrent.bareMs).toFixed(2)}x); work folders left afterwards: ${result.concurrent.workFoldersLeft}.`,
  );
  return lines.join("\n");
}

/** True when every language met the overhead target. */
export function runnersTargetsMet(result) {
  return Object.values(result.results).every((entry) => entry.overheadMs <= OVERHEAD_TARGET_MS);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "40" }, concurrency: { type: "string", default: "100" } },
  });
  const result = await runRunnersBenchmark({
    rounds: Number(values.rounds),
    concurrency: Number(values.concurrency),
    log: (message) => console.error(`bench: ${message}`),
  });
  console.log(formatRunnersResults(result));
}
