/**
 * The MCP benchmark (issue 7). In one run, against the built package (dist/ or BENCH_DIST):
 *
 * - `skillgate mcp` spawned from the build (`node dist/surfaces/cli/main.js … mcp`, the catalog
 *   watch on as users run it) over stdio, and `skillgate mcp --http --port 0` over Streamable
 *   HTTP, each with a real SDK client; timed per `tools/call`, from the client's call to its
 *   answer: `load_skill` of a small skill, and `run_skill_script` of a no-op Python script of a
 *   read-tier skill in the bubblewrap sandbox (allowed without asking);
 * - against a bare MCP server made with the same SDK (the same low-level `Server`, one tool
 *   that answers "ok" at once), spawned the same way over the same transports
 *   (`node bench/mcp.mjs --bare-server stdio|http`);
 * - and, to show what the protocol adds, the same two calls through `turn.call` in-process.
 *
 * The tree is left alone for SETTLE_MS first, as a user's skills are between edits (a file
 * written within the racy-file window is read again on every look). Rounds alternate the
 * contestants' order to spread noise; figures are medians with minimums,
 * ratios are ratios of medians. The targets (load_skill at most 1.8x the bare server's median
 * over stdio, 1.5x over HTTP) are reported as PASS or MISS, never asserted. The catalog at
 * scale (idle CPU, load_skill at 10,000 skills) is bench/mcp-scale.mjs.
 * Run alone: `node bench/mcp.mjs [--rounds 200] [--run-rounds 40]`.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { median, summary } from "./stats.mjs";

/** The targets from issue 12: load_skill through skillgate at most this many times the bare server's median, per transport. */
export const LOAD_SKILL_RATIO_TARGETS = { stdio: 1.8, http: 1.5 };

/** How long the new tree is left alone before anything is timed: past the racy-file window. */
export const SETTLE_MS = 2_500;

/** The load_skill call and the bare server's call, as the benchmark makes them. */
export const LOAD = { name: "load_skill", arguments: { skill: "bench-load" } };
const RUN = {
  name: "run_skill_script",
  arguments: { skill: "bench-noop", script: "scripts/noop.py", arguments: {} },
};
export const BARE = { name: "noop", arguments: {} };

/** A temporary tree with the two benchmark skills, and the CLI flags that point skillgate at it. */
export function setUp() {
  const root = mkdtempSync(join(tmpdir(), "skillgate-bench-mcp-"));
  const config = join(root, "config");
  const data = join(root, "data");
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(config, { recursive: true });
  mkdirSync(home, { recursive: true });
  const skills = join(project, ".agents", "skills");
  mkdirSync(join(skills, "bench-load"), { recursive: true });
  writeFileSync(
    join(skills, "bench-load", "SKILL.md"),
    "---\nname: bench-load\ndescription: A small skill for the MCP benchmark's load_skill.\n---\nRead the input, then answer in one line.\n",
  );
  mkdirSync(join(skills, "bench-noop", "scripts"), { recursive: true });
  writeFileSync(
    join(skills, "bench-noop", "SKILL.md"),
    "---\nname: bench-noop\ndescription: A no-op script for the MCP benchmark.\nmetadata:\n  skillgate.tier: read\n---\nRun scripts/noop.py.\n",
  );
  writeFileSync(join(skills, "bench-noop", "scripts", "noop.py"), "");
  const flags = ["--config", config, "--data", data, "--root", project, "--no-builtins"];
  return { root, config, data, project, home, flags };
}

/** The SDK's client and its two client transports. */
export async function importSdk() {
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  return { Client, StdioClientTransport, StreamableHTTPClientTransport };
}

/** A child process that prints its URL on stdout; resolves with the URL and the child. */
function spawnHttp(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match !== null) resolve({ url: match[1], child });
    });
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => reject(new Error(`exited (${code}) before listening: ${out}`)));
  });
}

/** Connects a client over `transport` ("stdio" or "http") to the server `args` start. */
export async function connect(sdk, transport, args, env) {
  const client = new sdk.Client({ name: "skillgate-bench", version: "1.0.0" });
  if (transport === "stdio") {
    await client.connect(
      new sdk.StdioClientTransport({ command: process.execPath, args, env, stderr: "ignore" }),
    );
    return { client, stop: () => client.close() };
  }
  const { url, child } = await spawnHttp(process.execPath, args, env);
  await client.connect(new sdk.StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    stop: async () => {
      await client.close();
      child.kill("SIGTERM");
    },
  };
}

/** Milliseconds from a `tools/call` to its answer; an error result throws. */
export async function timedCall(client, call) {
  const started = performance.now();
  const result = await client.callTool(call);
  const taken = performance.now() - started;
  if (result.isError) throw new Error(`${call.name}: ${JSON.stringify(result.content)}`);
  return taken;
}

/** Runs the benchmark: `rounds` timed pairs (bare, load_skill) and `runRounds` sandbox runs per transport, after a warm-up. */
export async function runMcpBenchmark({ rounds = 200, runRounds = 40, log = () => {} } = {}) {
  const sdk = await importSdk();
  const place = setUp();
  // A settled tree, as a user's skills are between edits: a file changed less than the
  // racy-file window (2 s, core/file-stamps.ts) before a look is read again on every look.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: place.home };
  const main = join(distFolder(), "surfaces", "cli", "main.js");
  const bareScript = fileURLToPath(import.meta.url);
  const results = {};
  try {
    for (const transport of ["stdio", "http"]) {
      const httpFlags = transport === "http" ? ["--http", "--port", "0"] : [];
      const skillgate = await connect(sdk, transport, [main, ...place.flags, "mcp", ...httpFlags], env);
      const bare = await connect(sdk, transport, [bareScript, "--bare-server", transport], env);
      try {
        // Warm-up: the first calls open the chat database, make the sandbox's snapshot, load code.
        for (let index = 0; index < 5; index += 1) {
          await timedCall(bare.client, BARE);
          await timedCall(skillgate.client, LOAD);
          await timedCall(skillgate.client, RUN);
        }
        // The cheap calls in their own rounds: a sandbox run's aftermath (its processes ending,
        // its work folder removed) must not land in a load_skill measurement.
        const times = { bare: [], load: [], run: [], loadPairs: [] };
        for (let round = 0; round < rounds; round += 1) {
          const order = round % 2 === 0 ? ["bare", "load"] : ["load", "bare"];
          const taken = {};
          for (const contestant of order)
            taken[contestant] = await timedCall(
              contestant === "bare" ? bare.client : skillgate.client,
              contestant === "bare" ? BARE : LOAD,
            );
          times.bare.push(taken.bare);
          times.load.push(taken.load);
          times.loadPairs.push(taken.load - taken.bare);
          if ((round + 1) % 50 === 0) log(`mcp ${transport}: ${round + 1}/${rounds} rounds of load_skill`);
        }
        for (let round = 0; round < runRounds; round += 1)
          times.run.push(await timedCall(skillgate.client, RUN));
        log(`mcp ${transport}: ${runRounds} sandbox runs`);
        const bareTimes = summary(times.bare);
        const load = summary(times.load);
        const run = summary(times.run);
        results[transport] = {
          bare: bareTimes,
          load,
          run,
          loadRatio: load.median / bareTimes.median,
          runRatio: run.median / bareTimes.median,
          loadOverheadMs: median(times.loadPairs),
        };
      } finally {
        await skillgate.stop();
        await bare.stop();
      }
    }

    // The same calls without MCP: turn.call in this process, over the same tree.
    const { createSkillgate } = await import(pathToFileURL(join(distFolder(), "app", "skillgate.js")).href);
    const inProcess = createSkillgate({
      config: place.config,
      data: join(place.root, "in-process-data"),
      roots: [place.project],
      builtins: false,
    });
    const direct = { load: [], run: [] };
    try {
      const turn = inProcess.createTurn({ chatId: "bench" });
      const call = async (entry) => {
        const started = performance.now();
        const answer = await turn.call(entry.name, entry.arguments);
        if (answer.status !== "ok") throw new Error(`${entry.name}: ${answer.status}: ${answer.text}`);
        return performance.now() - started;
      };
      for (let index = 0; index < 5; index += 1) {
        await call(LOAD);
        await call(RUN);
      }
      for (let round = 0; round < rounds; round += 1) direct.load.push(await call(LOAD));
      for (let round = 0; round < runRounds; round += 1) direct.run.push(await call(RUN));
    } finally {
      inProcess.close();
    }
    return {
      rounds,
      runRounds,
      transports: results,
      inProcess: { load: summary(direct.load), run: summary(direct.run) },
    };
  } finally {
    rmSync(place.root, { recursive: true, force: true, maxRetries: 2 });
  }
}

const ms = (value) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

/** The results as a markdown section. */
export function formatMcpResults(result) {
  const lines = [
    "## MCP",
    "",
    `${result.rounds} rounds of the bare call and load_skill per transport, order alternated; then ${result.runRounds} sandbox runs. Medians (min); ratios are ratios of medians to the bare server's.`,
    "",
    "| transport | bare server, no-op tool | load_skill | ratio | target | run_skill_script (no-op, sandbox) | ratio |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const [transport, entry] of Object.entries(result.transports)) {
    lines.push(
      `| ${transport} | ${ms(entry.bare.median)} (${ms(entry.bare.min)}) | ${ms(entry.load.median)} (${ms(entry.load.min)}) | ${entry.loadRatio.toFixed(2)}x | ${entry.loadRatio <= LOAD_SKILL_RATIO_TARGETS[transport] ? "PASS" : "MISS"} (<= ${LOAD_SKILL_RATIO_TARGETS[transport]}x) | ${ms(entry.run.median)} (${ms(entry.run.min)}) | ${entry.runRatio.toFixed(1)}x |`,
    );
  }
  lines.push(
    "",
    `Without MCP (turn.call in-process, same tree): load_skill ${ms(result.inProcess.load.median)} (${ms(result.inProcess.load.min)}), ` +
      `run_skill_script ${ms(result.inProcess.run.median)} (${ms(result.inProcess.run.min)}). ` +
      `load_skill's overhead over the bare call (median of back-to-back pairs): ${Object.entries(
        result.transports,
      )
        .map(([transport, entry]) => `${transport} ${ms(entry.loadOverheadMs)}`)
        .join(", ")}.`,
    "",
    `The call's own work in skillgate (turn.call above) against a bare round trip: ${Object.entries(
      result.transports,
    )
      .map(
        ([transport, entry]) =>
          `${transport} (bare ${ms(entry.bare.median)} + load_skill in-process ${ms(result.inProcess.load.median)}) / bare = ${((entry.bare.median + result.inProcess.load.median) / entry.bare.median).toFixed(2)}x`,
      )
      .join(
        "; ",
      )}: the ratio load_skill would have if MCP itself cost nothing more than for the bare server.`,
  );
  return lines.join("\n");
}

/** True when load_skill met the ratio target on every transport. */
export function mcpTargetsMet(result) {
  return Object.entries(result.transports).every(
    ([transport, entry]) => entry.loadRatio <= LOAD_SKILL_RATIO_TARGETS[transport],
  );
}

/** The bare contestant: the SDK's low-level Server with one tool that answers at once. */
async function serveBare(transport) {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import(
    "@modelcontextprotocol/sdk/types.js"
  );
  const makeServer = () => {
    const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: "noop", description: "Does nothing.", inputSchema: { type: "object", properties: {} } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "ok" }] }));
    return server;
  };
  if (transport === "stdio") {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    await makeServer().connect(new StdioServerTransport());
    process.stdin.on("end", () => process.exit(0));
    return;
  }
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const { randomUUID } = await import("node:crypto");
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const id = request.headers["mcp-session-id"];
    let session = id !== undefined ? sessions.get(id) : undefined;
    if (session === undefined) {
      session = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (created) => sessions.set(created, session),
      });
      await makeServer().connect(session);
    }
    await session.handleRequest(request, response, body);
  });
  http.listen(0, "127.0.0.1", () => console.log(`bare MCP at http://127.0.0.1:${http.address().port}/mcp`));
  process.on("SIGTERM", () => process.exit(0));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "200" },
      "run-rounds": { type: "string", default: "40" },
      "bare-server": { type: "string" },
    },
  });
  if (values["bare-server"] !== undefined) {
    await serveBare(values["bare-server"]);
  } else {
    const result = await runMcpBenchmark({
      rounds: Number(values.rounds),
      runRounds: Number(values["run-rounds"]),
      log: (message) => console.error(`bench: ${message}`),
    });
    console.log(formatMcpResults(result));
    console.log(mcpTargetsMet(result) ? "MCP load_skill target met" : "MISS: MCP load_skill target");
  }
}
