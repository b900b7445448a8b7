/**
 * The node-run benchmark (issue 15): what running a script on a named server adds over running
 * it in the local sandbox, both through the whole `run_skill_script` path of one Skillgate.
 *
 * - A controller (`startServer` from the built package, port 0) whose project holds two skills
 *   with the same no-op Python script (`pass`): `noop-local` (`skillgate.execution: sandbox`) and
 *   `noop-node` (`skillgate.execution: node`), both tier `read`, so no ask.
 * - One node agent as a child process (`node dist/surfaces/cli/main.js node-agent`), enrolled
 *   through the registry, its own data folder, mode `sandbox`; it has synced `noop-node`.
 * - local: `turn.call("run_skill_script", {skill: "noop-local", …})`: normalisation, policy, the
 *   router's hash check and snapshot, the controller's sandbox (one kept started ahead).
 * - node: the same call for `noop-node` with `{"node": "bench01"}`: the same steps on the
 *   controller, then the run message over the WebSocket on loopback, the agent's own hash check
 *   and snapshot of its copy, its sandbox (one kept started ahead), the output and the end back.
 *
 * Rounds alternate the order after warm-up runs; figures are medians with minimums. Target: the
 * node run adds at most 5 ms at the median. `node bench/node-run.mjs [rounds]` runs it alone.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

/** The most the node path may add at the median. */
export const NODE_RUN_TARGET_MS = 5;
const NODE = "bench01";
const TOKEN = "bench-owner-token-0123456789abcdef";

function writeSkill(skills, name, execution) {
  const folder = join(skills, name);
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: A no-op for the node-run benchmark.\nmetadata:\n  skillgate.execution: ${execution}\n  skillgate.tier: read\n---\nRun scripts/noop.py.\n`,
  );
  writeFileSync(join(folder, "scripts", "noop.py"), "pass\n");
  return folder;
}

async function until(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`node-run: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs the benchmark; returns medians and minimums in milliseconds and the difference. */
export async function runNodeRunBenchmark({ rounds = 40, log = () => {} } = {}) {
  const dist = distFolder();
  const { startServer } = await import(pathToFileURL(join(dist, "surfaces/http/server.js")).href);
  const { hashSkillFolder } = await import(pathToFileURL(join(dist, "skill/content-hash.js")).href);
  const tree = mkdtempSync(join(tmpdir(), "skillgate-bench-node-run-"));
  const project = join(tree, "project");
  const skills = join(project, ".agents", "skills");
  writeSkill(skills, "noop-local", "sandbox");
  const nodeHash = hashSkillFolder(writeSkill(skills, "noop-node", "node")).hash;
  let server;
  let agent;
  try {
    server = await startServer({
      port: 0,
      token: TOKEN,
      skillgate: {
        config: join(tree, "config"),
        data: join(tree, "data"),
        roots: [project],
        builtins: false,
        watchIntervalMs: false,
      },
    });
    const nodes = server.context.nodes;
    const { token } = await nodes.registry.add(NODE);
    const agentData = join(tree, "agent");
    mkdirSync(agentData);
    agent = spawn(
      process.execPath,
      [
        join(dist, "surfaces/cli/main.js"),
        "--data",
        agentData,
        "node-agent",
        "--controller",
        server.url,
        "--name",
        NODE,
        "--enrol",
        token,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let agentLog = "";
    agent.stderr.on("data", (chunk) => {
      agentLog += chunk;
    });
    await until(
      "the agent holding noop-node",
      () => nodes.hub.isOnline(NODE) && nodes.hub.holds(NODE, "noop-node", nodeHash),
    ).catch((error) => {
      throw new Error(`${error.message}; the agent logged:\n${agentLog}`);
    });
    const turn = server.context.host.skillgate.createTurn({ chatId: "bench-node-run" });
    const call = async (skill, args) => {
      const begun = performance.now();
      const result = await turn.call("run_skill_script", {
        skill,
        script: "scripts/noop.py",
        arguments: args,
      });
      const took = performance.now() - begun;
      if (result.status !== "ok") throw new Error(`${skill} did not run: ${result.text}`);
      return took;
    };
    const local = () => call("noop-local", {});
    const node = () => call("noop-node", { node: NODE });
    for (let warm = 0; warm < 3; warm += 1) {
      await local();
      await node();
    }
    const timings = { local: [], node: [] };
    for (let round = 0; round < rounds; round += 1) {
      if (round % 2 === 0) {
        timings.local.push(await local());
        timings.node.push(await node());
      } else {
        timings.node.push(await node());
        timings.local.push(await local());
      }
      if ((round + 1) % 10 === 0) log(`node-run: round ${round + 1}/${rounds}`);
    }
    const of = (values) => ({ median: median(values), min: Math.min(...values) });
    const result = { rounds, local: of(timings.local), node: of(timings.node) };
    // Each round's two runs are back to back: their difference moves with the machine's load
    // far less than the difference of two medians taken over the whole run.
    const paired = timings.node.map((value, index) => value - (timings.local[index] ?? value));
    return {
      ...result,
      addedMs: median(paired),
      medianDifferenceMs: result.node.median - result.local.median,
      ratio: result.node.median / result.local.median,
    };
  } finally {
    if (agent !== undefined && agent.exitCode === null) {
      agent.kill("SIGTERM");
      await new Promise((resolve) => agent.once("exit", resolve));
    }
    await server?.close();
    rmSync(tree, { recursive: true, force: true });
  }
}

/** True when the node path adds at most {@link NODE_RUN_TARGET_MS}: the median of the rounds' paired differences. */
export function nodeRunTargetMet(result) {
  return result.addedMs <= NODE_RUN_TARGET_MS;
}

/** The benchmark's section of the report. */
export function formatNodeRunResults(result) {
  const ms = (value) => `${value.toFixed(1)} ms`;
  return [
    `## Named servers: a run on a node (${result.rounds} rounds, median / min)`,
    "",
    "| contestant | median | min |",
    "| --- | --- | --- |",
    `| no-op Python in the local sandbox (run_skill_script, whole path) | ${ms(result.local.median)} | ${ms(result.local.min)} |`,
    `| the same on a node agent over loopback (WebSocket, the agent's hash check, snapshot and sandbox) | ${ms(result.node.median)} | ${ms(result.node.min)} |`,
    "",
    `added by the node, the median of each round's node − local: ${ms(result.addedMs)} (target ≤ ${NODE_RUN_TARGET_MS} ms: ${nodeRunTargetMet(result) ? "PASS" : "MISS"}); the difference of the medians: ${ms(result.medianDifferenceMs)}; node / local: ${result.ratio.toFixed(2)}x`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 40);
  const result = await runNodeRunBenchmark({ rounds, log: (message) => console.error(`bench: ${message}`) });
  console.log(formatNodeRunResults(result));
}
