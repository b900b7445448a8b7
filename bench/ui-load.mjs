/**
 * The web UI benchmark (issue 14): the first load of `skillgate serve`'s UI on loopback in
 * Chromium, with 200 stored skills. In one run, against the built package (dist/ or BENCH_DIST):
 *
 * - `skillgate serve` spawned from the build on port 0, signed in once through the login
 *   address it prints; each round opens a new browser context (empty cache, the session
 *   cookie added) and times from navigation start until the skills table holds every row;
 * - the floor: a bare `node:http` server on loopback answering one static HTML page that
 *   already holds the same 200 rows (no script at all), timed the same way in the same browser.
 *
 * It also counts the JavaScript the UI ships before the editor opens (every script response of
 * the first load, gzipped here with zlib's default level, whether or not the server compresses)
 * and checks that no script of CodeMirror was among them. Rounds alternate the order of
 * the two contestants; figures are medians with minimums, ratios are ratios of medians. The
 * targets (the list in at most 1 s, at most 200 KB of gzip JS) are reported as PASS or MISS.
 * Run alone: `node bench/ui-load.mjs [--rounds 9] [--skills 200]`.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { distFolder } from "./contestants.mjs";
import { median, summary } from "./stats.mjs";

/** The targets from issue 14. */
export const UI_TARGETS = { listMs: 1_000, gzipJsBytes: 200 * 1024 };

/** Debian's chromium and the flags the browser tests use. */
const CHROMIUM_PATH = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A class name only CodeMirror's code holds: a script with it is the editor, which must not load with the list. */
const EDITOR_MARK = "cm-editor";

/** The SKILL.md of the benchmark's skill number `index`. */
function skillFile(index) {
  const name = `bench-skill-${String(index).padStart(3, "0")}`;
  return {
    name,
    text: `---\nname: ${name}\ndescription: Benchmark skill ${index} reads a table and answers one question about it.\nmetadata:\n  skillgate.tier: read\n---\nRead the table, answer the question.\n`,
  };
}

/** A data folder holding `count` stored skills, written through the built store. */
export async function seedStore(root, count) {
  const { Store } = await import(pathToFileURL(join(distFolder(), "store", "index.js")).href);
  const data = join(root, "data");
  const store = await Store.open({ dataFolder: data, checkScripts: false });
  for (let index = 0; index < count; index += 1) {
    const { name, text } = skillFile(index);
    await store.create(name, { "SKILL.md": text }, { enabled: index % 3 !== 0 });
  }
  return data;
}

/** Spawns `skillgate serve` on port 0 and resolves with the login address it prints. */
export function startServe(root, data) {
  const config = join(root, "config");
  const home = join(root, "home");
  mkdirSync(config, { recursive: true });
  mkdirSync(home, { recursive: true });
  const args = [
    join(distFolder(), "surfaces", "cli", "main.js"),
    "--config",
    config,
    "--data",
    data,
    "--no-builtins",
    "serve",
    "--port",
    "0",
  ];
  const env = { ...process.env, HOME: home, SKILLGATE_SERVE_TOKEN: "" };
  delete env.SKILLGATE_SERVE_TOKEN;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const look = (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+)\/login\?token=\S+/.exec(out);
      if (match !== null) resolve({ base: match[1], loginUrl: match[0], child });
    };
    child.stdout.setEncoding("utf8").on("data", look);
    child.stderr.setEncoding("utf8").on("data", look);
    child.on("error", reject);
    child.on("close", (code) =>
      reject(new Error(`skillgate serve exited (${code}) before listening: ${out}`)),
    );
  });
}

/** The floor: one static page with the same rows, from a bare server on loopback. */
function startFloor(count) {
  const rows = Array.from({ length: count }, (_, index) => {
    const { name } = skillFile(index);
    return `<tr><th><a href="#/skills/${name}">${name}</a></th><td>owner</td><td>enabled</td><td>none</td><td>read</td><td>none</td><td>0123456789ab</td></tr>`;
  }).join("");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title></head><body><table data-testid="skills-table"><tbody>${rows}</tbody></table></body></html>`;
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({ base: `http://127.0.0.1:${server.address().port}`, server }),
    );
  });
}

/** Loads `url` in a new context; resolves with ms from navigation start to `count` rows, and the scripts fetched. */
async function timeFirstLoad(browser, url, count, cookies) {
  const context = await browser.newContext();
  if (cookies.length > 0) await context.addCookies(cookies);
  const page = await context.newPage();
  const scripts = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") scripts.push(response);
  });
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    (wanted) =>
      document.querySelectorAll("[data-testid=skills-table] tbody tr").length >= wanted
        ? performance.now()
        : false,
    count,
    { polling: "raf", timeout: 60_000 },
  );
  const ms = await handle.jsonValue();
  const bodies = await Promise.all(
    scripts.map(async (response) => ({ url: response.url(), body: await response.body() })),
  );
  await context.close();
  return {
    ms,
    scripts: bodies.map(({ url: scriptUrl, body }) => ({
      url: scriptUrl,
      bytes: body.length,
      gzipBytes: gzipSync(body).length,
      editor: body.includes(EDITOR_MARK),
    })),
  };
}

/** Runs the benchmark; resolves with its measurements. */
export async function runUiLoadBenchmark({ skills = 200, rounds = 9, log = () => {} } = {}) {
  const { chromium } = await import("playwright-core");
  const root = mkdtempSync(join(tmpdir(), "skillgate-bench-ui-"));
  let serve;
  let floor;
  let browser;
  try {
    log(`ui: seeding ${skills} skills`);
    const data = await seedStore(root, skills);
    serve = await startServe(root, data);
    floor = await startFloor(skills);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
    // Sign in once through the printed address; every round reuses the session cookie only.
    const signIn = await browser.newContext();
    const signInPage = await signIn.newPage();
    await signInPage.goto(serve.loginUrl);
    await signInPage.waitForSelector("[data-testid=skills-table]", { timeout: 60_000 });
    const cookies = await signIn.cookies();
    await signIn.close();
    // One warm-up of each (the server's first read of the store, the browser's first process).
    await timeFirstLoad(browser, `${serve.base}/`, skills, cookies);
    await timeFirstLoad(browser, `${floor.base}/`, skills, []);
    const ui = [];
    const bare = [];
    let shipped;
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ["ui", "floor"] : ["floor", "ui"];
      for (const contestant of order) {
        if (contestant === "ui") {
          const result = await timeFirstLoad(browser, `${serve.base}/`, skills, cookies);
          ui.push(result.ms);
          shipped = result.scripts;
        } else {
          bare.push((await timeFirstLoad(browser, `${floor.base}/`, skills, [])).ms);
        }
      }
      log(`ui: round ${round + 1}/${rounds}`);
    }
    const gzipBytes = shipped.reduce((total, script) => total + script.gzipBytes, 0);
    return {
      skills,
      rounds,
      ui: summary(ui),
      floor: summary(bare),
      ratio: median(ui) / median(bare),
      scripts: shipped,
      jsBytes: shipped.reduce((total, script) => total + script.bytes, 0),
      gzipBytes,
      editorLoaded: shipped.some((script) => script.editor),
    };
  } finally {
    await browser?.close();
    floor?.server.close();
    if (serve !== undefined) {
      serve.child.kill("SIGTERM");
      await new Promise((resolve) => {
        if (serve.child.exitCode !== null) resolve();
        else serve.child.once("close", resolve);
      });
    }
    rmSync(root, { recursive: true, force: true });
  }
}

/** True when both targets are met and the editor stayed out of the first load. */
export function uiTargetsMet(results) {
  return (
    results.ui.median <= UI_TARGETS.listMs &&
    results.gzipBytes <= UI_TARGETS.gzipJsBytes &&
    !results.editorLoaded
  );
}

/** The results as Markdown. */
export function formatUiLoadResults(results) {
  const ms = (value) => `${value.toFixed(0)} ms`;
  const kb = (value) => `${(value / 1024).toFixed(1)} KB`;
  const lines = [
    `## Web UI first load (${results.skills} skills, ${results.rounds} rounds, Chromium on loopback)`,
    "",
    "| contestant | median | min |",
    "| --- | ---: | ---: |",
    `| skills list shown (skillgate serve) | ${ms(results.ui.median)} | ${ms(results.ui.min)} |`,
    `| floor: static HTML with the same rows (node:http) | ${ms(results.floor.median)} | ${ms(results.floor.min)} |`,
    "",
    `ratio to the floor: ${results.ratio.toFixed(2)}x`,
    `JavaScript before the editor opens: ${results.scripts.length} file(s), ${kb(results.jsBytes)} raw, ${kb(results.gzipBytes)} gzip; editor chunk loaded: ${results.editorLoaded ? "yes" : "no"}`,
    `targets: list <= ${UI_TARGETS.listMs} ms: ${results.ui.median <= UI_TARGETS.listMs ? "PASS" : "MISS"}; gzip JS <= ${kb(UI_TARGETS.gzipJsBytes)}: ${results.gzipBytes <= UI_TARGETS.gzipJsBytes ? "PASS" : "MISS"}`,
  ];
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "9" }, skills: { type: "string", default: "200" } },
  });
  const results = await runUiLoadBenchmark({
    rounds: Number(values.rounds),
    skills: Number(values.skills),
    log: (message) => console.error(`bench: ${message}`),
  });
  console.log(formatUiLoadResults(results));
}
