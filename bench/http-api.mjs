/**
 * The `/api/skills` benchmark (issue 14). `GET /api/skills` with 200 stored skills, through
 * `skillgate serve` (`startServer` from the built package: the security middleware, the owner's
 * bearer token, the route and the store read on every request), against a bare Hono server on
 * `@hono/node-server` that answers the same JSON from memory (the body skillgate answered,
 * parsed once, serialised per request by `c.json`, as a route does). A third figure, skillgate
 * answering a path with no route (404 after every check), is the server's own cost per request
 * without the route's work.
 *
 * Each server runs in a child process of its own (`node bench/http-api.mjs --serve skillgate|bare
 * DATA`), so the load generator, in this process, does not share its event loop. The load
 * generator is a small Node client: `connections` keep-alive sockets, each sending the next
 * request as soon as its answer has been read, for `seconds` after a one-second warm-up. Rounds
 * alternate the two servers; requests per second and p50/p99 latencies are reported per round
 * and as medians, and the target (skillgate's throughput at least 0.5x the bare server's, the
 * ratio of medians) as PASS or MISS, never asserted.
 * Run alone: `node bench/http-api.mjs [--rounds 5] [--seconds 5] [--connections 50]`.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

/** The target: skillgate's requests per second at least this share of the bare server's. */
export const THROUGHPUT_TARGET = 0.5;

/** Stored skills the benchmark creates. */
export const STORED_SKILLS = 200;

const TOKEN = "bench-owner-token-0123456789abcdef";
const SELF = fileURLToPath(import.meta.url);

/** A data folder with {@link STORED_SKILLS} stored skills, half of them enabled. */
async function makeStore(root) {
  const { Store } = await import(pathToFileURL(join(distFolder(), "store", "store.js")).href);
  const data = join(root, "data");
  const store = await Store.open({ dataFolder: data });
  for (let index = 0; index < STORED_SKILLS; index += 1) {
    const name = `bench-skill-${String(index).padStart(3, "0")}`;
    const made = await store.create(name, {
      "SKILL.md": `---\nname: ${name}\ndescription: Benchmark skill ${index} lists the things a home lab keeps and says which need attention.\nmetadata:\n  skillgate.tier: read\n---\nRun scripts/run.py.\n`,
      "scripts/run.py": `print("skill ${index}")\n`,
    });
    if (index % 2 === 0) await store.enable(name, { hash: made.hash });
  }
  return data;
}

/** Starts one server as a child process; resolves with its port and a stop function. */
function startChild(kind, data, bodyFile) {
  const child = spawn(process.execPath, [SELF, "--serve", kind, data, ...(bodyFile ? [bodyFile] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      const match = /^port (\d+)$/m.exec(out);
      if (match)
        resolve({
          port: Number(match[1]),
          stop: () =>
            new Promise((done) => {
              child.once("close", done);
              child.kill("SIGTERM");
            }),
        });
    });
    child.once("close", (code) => reject(new Error(`the ${kind} server exited (${code}) before listening`)));
  });
}

/** One GET with keep-alive; resolves with the status and the body. */
function get(agent, port, path) {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: "127.0.0.1", port, path, agent, headers: { Authorization: `Bearer ${TOKEN}` } },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** Loads `port` with `connections` keep-alive clients for `seconds`; requests per second and latencies. */
async function load(port, connections, seconds, path = "/api/skills", status = 200) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  const run = async (untilMs, record) => {
    const client = async () => {
      while (performance.now() < untilMs) {
        const started = performance.now();
        const answer = await get(agent, port, path);
        if (answer.status !== status) throw new Error(`GET ${path} answered ${answer.status}`);
        if (record) latencies.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: connections }, client));
  };
  await run(performance.now() + 1000, false);
  const started = performance.now();
  await run(started + seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((left, right) => left - right);
  const at = (share) => latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))];
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    requests: latencies.length,
  };
}

/** Runs the benchmark; see the file's comment. */
export async function runHttpApiBenchmark({
  rounds = 5,
  seconds = 5,
  connections = 50,
  log = () => {},
} = {}) {
  const root = mkdtempSync(join(tmpdir(), "skillgate-bench-http-"));
  try {
    log(`http api: creating ${STORED_SKILLS} stored skills`);
    const data = await makeStore(root);
    mkdirSync(join(root, "config"), { recursive: true });
    const skillgate = await startChild("skillgate", data);
    const agent = new Agent({ keepAlive: false });
    const first = await get(agent, skillgate.port, "/api/skills");
    if (first.status !== 200) throw new Error(`GET /api/skills answered ${first.status}: ${first.body}`);
    const bodyFile = join(root, "skills.json");
    writeFileSync(bodyFile, first.body);
    const listed = JSON.parse(first.body.toString("utf8"));
    const count = Array.isArray(listed) ? listed.length : (listed.skills?.length ?? 0);
    const bare = await startChild("bare", data, bodyFile);
    const results = {
      skillgate: [],
      bare: [],
      checksOnly: [],
      bodyBytes: first.body.length,
      skillsListed: count,
      connections,
      seconds,
    };
    try {
      for (let round = 0; round < rounds; round += 1) {
        const order =
          round % 2 === 0 ? ["skillgate", "bare", "checksOnly"] : ["checksOnly", "bare", "skillgate"];
        for (const name of order) {
          const port = name === "bare" ? bare.port : skillgate.port;
          // checksOnly: a path with no route, answered 404 after every check (Host, token, guard): the server's own cost.
          const figures =
            name === "checksOnly"
              ? await load(port, connections, seconds, "/api/no-such-route", 404)
              : await load(port, connections, seconds);
          results[name].push(figures);
          log(
            `http api: round ${round + 1}/${rounds} ${name}: ${figures.requestsPerSecond.toFixed(0)} req/s`,
          );
        }
      }
    } finally {
      await skillgate.stop();
      await bare.stop();
    }
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Medians of each contestant's rounds and the throughput ratio. */
export function httpApiSummary(results) {
  const of = (rounds) => ({
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    p50: median(rounds.map((round) => round.p50)),
    p99: median(rounds.map((round) => round.p99)),
  });
  const skillgate = of(results.skillgate);
  const bare = of(results.bare);
  const checksOnly = of(results.checksOnly);
  return { skillgate, bare, checksOnly, ratio: skillgate.requestsPerSecond / bare.requestsPerSecond };
}

/** True when skillgate's median throughput is at least {@link THROUGHPUT_TARGET} of the bare server's. */
export function httpApiTargetMet(results) {
  return httpApiSummary(results).ratio >= THROUGHPUT_TARGET;
}

/** The results as Markdown. */
export function formatHttpApiResults(results) {
  const summary = httpApiSummary(results);
  const row = (name, figures) =>
    `| ${name} | ${figures.requestsPerSecond.toFixed(0)} | ${figures.p50.toFixed(2)} | ${figures.p99.toFixed(2)} |`;
  return [
    `## GET /api/skills, ${results.skillsListed} skills listed (${results.bodyBytes} bytes), ${results.connections} connections, ${results.seconds} s a round, ${results.skillgate.length} rounds (medians)`,
    "",
    "| server | requests/s | p50 ms | p99 ms |",
    "| --- | ---: | ---: | ---: |",
    row("skillgate serve", summary.skillgate),
    row("bare Hono, same JSON from memory", summary.bare),
    row("skillgate serve, no route (404 after every check)", summary.checksOnly),
    "",
    `throughput ratio skillgate/bare: ${summary.ratio.toFixed(2)}x (target >= ${THROUGHPUT_TARGET}x): ${summary.ratio >= THROUGHPUT_TARGET ? "PASS" : "MISS"}`,
    `per round (req/s): skillgate ${results.skillgate.map((round) => round.requestsPerSecond.toFixed(0)).join(", ")}; bare ${results.bare.map((round) => round.requestsPerSecond.toFixed(0)).join(", ")}; no route ${results.checksOnly.map((round) => round.requestsPerSecond.toFixed(0)).join(", ")}`,
  ].join("\n");
}

/** The child process: one server on port 0, its port printed, stopped by SIGTERM. */
async function serveChild(kind, data, bodyFile) {
  if (kind === "skillgate") {
    const { startServer } = await import(
      pathToFileURL(join(distFolder(), "surfaces", "http", "server.js")).href
    );
    const empty = mkdtempSync(join(tmpdir(), "skillgate-bench-http-root-"));
    const server = await startServer({
      port: 0,
      token: TOKEN,
      uiFolder: join(empty, "no-ui"),
      skillgate: { data, config: join(empty, "config"), roots: [empty], watchIntervalMs: false },
    });
    process.stdout.write(`port ${server.port}\n`);
    process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
    return;
  }
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const skills = JSON.parse(readFileSync(bodyFile, "utf8"));
  const app = new Hono();
  app.get("/api/skills", (c) => c.json(skills));
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
    process.stdout.write(`port ${info.port}\n`),
  );
  process.once("SIGTERM", () => server.close(() => process.exit(0)));
}

if (process.argv[1] === SELF) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      serve: { type: "string" },
      rounds: { type: "string", default: "5" },
      seconds: { type: "string", default: "5" },
      connections: { type: "string", default: "50" },
    },
  });
  if (values.serve !== undefined) await serveChild(values.serve, positionals[0], positionals[1]);
  else {
    const results = await runHttpApiBenchmark({
      rounds: Number(values.rounds),
      seconds: Number(values.seconds),
      connections: Number(values.connections),
      log: (message) => console.error(`bench: ${message}`),
    });
    console.log(formatHttpApiResults(results));
  }
}
