/**
 * The scale benchmark (issue 12, section 2): 100,000 skills across 5 roots (30 %, 25 %,
 * 20 %, 15 % and 10 % of them; bench/generate.mjs `generateRoots`), each contestant a
 * fresh process, rounds alternating their order:
 *
 * - floor: list each root and read every SKILL.md (bench/scale-worker.mjs);
 * - pi: `loadSkillsFromDir` on each root (bench/scale-worker.mjs);
 * - skillgate: the real CLI, `skillgate list --json` and `skillgate list` (the table), with
 *   the five roots as `skills.user_folders` and `discovery.max_skills_per_root` set so the
 *   largest root loads whole; no built-ins, an empty home and project.
 *
 * Every process runs under `--import bench/peak-rss.mjs`, which reports its peak RSS. Each
 * contestant must find exactly N skills or the run fails. One more run of `list --json`
 * with the default cap shows what a cap leaves out: the count loaded and the stderr line.
 * Nothing is asserted about speed; figures go to BENCHMARKS.md.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { distFolder } from "./contestants.mjs";
import { generateRoots, WORK_FOLDER } from "./generate.mjs";
import { median, summary } from "./stats.mjs";

const BENCH = fileURLToPath(new URL(".", import.meta.url));
const PEAK_RSS = join(BENCH, "peak-rss.mjs");
const WORKER = join(BENCH, "scale-worker.mjs");

/** The folders and config the CLI runs with; `cap` is the per-root skills cap, or none for the default. */
function cliSetup(total, roots, cap) {
  const base = join(WORK_FOLDER, `scale-${total}-${cap ?? "default"}`);
  const folders = { config: join(base, "config"), data: join(base, "data"), home: join(base, "home") };
  const project = join(base, "project");
  for (const folder of [...Object.values(folders), project]) mkdirSync(folder, { recursive: true });
  const lines = ["skills:", "  user_folders:", ...roots.map((root) => `    - ${JSON.stringify(root)}`)];
  if (cap !== undefined) lines.push("discovery:", `  max_skills_per_root: ${cap}`);
  writeFileSync(join(folders.config, "config.yaml"), `${lines.join("\n")}\n`);
  return { folders, project };
}

/** Runs one process under the peak-RSS preload: wall time, peak RSS, stdout, stderr. */
function measured(argv, options = {}) {
  const start = performance.now();
  const child = spawnSync(process.execPath, ["--import", PEAK_RSS, ...argv], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    maxBuffer: 1 << 30,
    encoding: "buffer",
  });
  const wallMs = performance.now() - start;
  if (child.status !== 0 && child.status !== null && options.allowFailure !== true)
    throw new Error(`${argv.join(" ")} failed (exit ${child.status}): ${child.stderr.toString().trim()}`);
  const report = child.output[3]?.toString().trim();
  const maxRss = report ? JSON.parse(report).maxRss : Number.NaN;
  return { wallMs, maxRss, stdout: child.stdout, stderr: child.stderr.toString() };
}

function expectCount(contestant, found, expected) {
  if (found !== expected)
    throw new Error(`${contestant} found ${found} skills, expected ${expected}: the comparison is void`);
}

function rotate(list, by) {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}

/** Runs the benchmark and returns its measurements. */
export async function runScaleBenchmark({ total = 100_000, rounds = 3, log = () => {} } = {}) {
  const generated = generateRoots(total);
  log(
    `${generated.reused ? "reusing" : "generated"} ${total} skills in ${generated.roots.length} roots (${generated.counts.join(", ")})`,
  );
  const largest = Math.max(...generated.counts);
  const raised = cliSetup(total, generated.roots, largest);
  const cli = join(distFolder(), "surfaces", "cli", "main.js");
  const cliEnvironment = (setup) => {
    const env = { ...process.env, HOME: setup.folders.home, NO_COLOR: "1" };
    delete env.SKILLGATE_HOME;
    return env;
  };
  const listArguments = (setup, json) => [
    cli,
    "--config",
    setup.folders.config,
    "--data",
    setup.folders.data,
    "--no-builtins",
    "list",
    ...(json ? ["--json"] : []),
  ];
  const samples = { floor: [], pi: [], listJson: [], listTable: [] };
  const contestants = {
    floor: () => {
      const run = measured([WORKER, "floor", ...generated.roots]);
      const report = JSON.parse(run.stdout.toString());
      expectCount("floor", report.count, total);
      samples.floor.push({ ...run, callMs: report.callMs });
    },
    pi: () => {
      const run = measured([WORKER, "pi", ...generated.roots]);
      const report = JSON.parse(run.stdout.toString());
      expectCount("pi", report.count, total);
      samples.pi.push({ ...run, callMs: report.callMs, problems: report.problems });
    },
    listJson: () => {
      const run = measured(listArguments(raised, true), { cwd: raised.project, env: cliEnvironment(raised) });
      expectCount("skillgate list --json", JSON.parse(run.stdout.toString()).skills.length, total);
      if (run.stderr !== "") throw new Error(`skillgate list --json wrote to stderr: ${run.stderr}`);
      samples.listJson.push(run);
    },
    listTable: () => {
      const run = measured(listArguments(raised, false), {
        cwd: raised.project,
        env: cliEnvironment(raised),
      });
      // One header line, then a row per skill.
      const rows = run.stdout.toString().trimEnd().split("\n").length - 1;
      expectCount("skillgate list", rows, total);
      samples.listTable.push(run);
    },
  };
  for (let round = 0; round < rounds; round += 1) {
    log(`scale round ${round + 1} of ${rounds}`);
    for (const name of rotate(Object.keys(contestants), round)) contestants[name]();
  }
  const defaults = cliSetup(total, generated.roots, undefined);
  const capped = measured(listArguments(defaults, true), {
    cwd: defaults.project,
    env: cliEnvironment(defaults),
  });
  const digest = (list) => ({
    wall: summary(list.map((item) => item.wallMs)),
    maxRss: median(list.map((item) => item.maxRss)),
    ...(list[0]?.callMs !== undefined ? { call: summary(list.map((item) => item.callMs)) } : {}),
  });
  return {
    total,
    counts: generated.counts,
    cap: largest,
    rounds,
    floor: digest(samples.floor),
    pi: { ...digest(samples.pi), problems: Math.max(...samples.pi.map((item) => item.problems)) },
    listJson: digest(samples.listJson),
    listTable: digest(samples.listTable),
    defaultCap: {
      loaded: JSON.parse(capped.stdout.toString()).skills.length,
      stderr: capped.stderr.trim(),
      wallMs: capped.wallMs,
    },
  };
}

const milliseconds = (value) => (value < 1000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`);
const megabytes = (value) => `${(value / 1024 / 1024).toFixed(0)} MB`;
const ratio = (value) => value.toFixed(2);

/** Formats the measurements as plain text. */
export function formatScaleResults(result) {
  const { floor, pi, listJson, listTable } = result;
  const rows = [
    ["floor: readdir + readFile, 5 roots", floor],
    ["pi loadSkillsFromDir, 5 roots", pi],
    ["skillgate list --json", listJson],
    ["skillgate list (table)", listTable],
  ];
  const header = [
    "contestant (fresh process)",
    "wall median",
    "wall min",
    "vs floor",
    "vs pi",
    "peak RSS",
    "work median",
  ];
  const body = rows.map(([label, stats]) => [
    label,
    milliseconds(stats.wall.median),
    milliseconds(stats.wall.min),
    ratio(stats.wall.median / floor.wall.median),
    ratio(stats.wall.median / pi.wall.median),
    megabytes(stats.maxRss),
    stats.call ? milliseconds(stats.call.median) : "-",
  ]);
  const widths = header.map((_, column) =>
    Math.max(...[header, ...body].map((row) => String(row[column]).length)),
  );
  const line = (row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join("  ");
  return [
    `## scale: ${result.total.toLocaleString("en-US")} skills in 5 roots (${result.counts.map((count) => count.toLocaleString("en-US")).join(", ")}); ` +
      `discovery.max_skills_per_root ${result.cap.toLocaleString("en-US")}; ${result.rounds} rounds`,
    "",
    line(header),
    line(widths.map((width) => "-".repeat(width))),
    ...body.map(line),
    "",
    "work = the floor's or pi's own call, timed inside its process (imports excluded)",
    `with the default cap (20,000 a root): list --json loaded ${result.defaultCap.loaded.toLocaleString("en-US")} skills ` +
      `in ${milliseconds(result.defaultCap.wallMs)} and said on stderr:`,
    ...(result.defaultCap.stderr === ""
      ? ["  (nothing: no root holds more than the cap)"]
      : result.defaultCap.stderr.split("\n").map((line) => `  ${line}`)),
    ...(pi.problems > 0 ? [`note: pi reported ${pi.problems} diagnostics`] : []),
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const total = Number(process.argv[2] ?? 100_000);
  const rounds = Number(process.argv[3] ?? 3);
  const result = await runScaleBenchmark({
    total,
    rounds,
    log: (message) => console.error(`bench: ${message}`),
  });
  console.log(formatScaleResults(result));
}
