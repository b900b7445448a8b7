/**
 * The three discovery contestants, shared by the in-process benchmark and the cold
 * worker: the floor (a bare listing plus one read per SKILL.md), pi's loader, and
 * skillgate's discovery from the built package (dist/, or BENCH_DIST).
 *
 * Each contestant returns the number of skills it found, so the benchmark can refuse a
 * comparison in which they did not all find the same N.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { WORK_FOLDER } from "./generate.mjs";

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The built package's folder: BENCH_DIST when set (a temp outDir), else dist/. */
export function distFolder() {
  const fromEnvironment = process.env.BENCH_DIST;
  return resolve(
    fromEnvironment !== undefined && fromEnvironment !== "" ? fromEnvironment : join(REPOSITORY, "dist"),
  );
}

/** Imports skillgate's library API from the built package. */
export async function importSkillgate() {
  const entry = join(distFolder(), "catalog", "index.js");
  if (!existsSync(entry))
    throw new Error(`no built package at ${entry}: run \`npm run build\` or set BENCH_DIST`);
  return import(pathToFileURL(entry).href);
}

/** Imports pi's loader from the package's main export. */
export async function importPi() {
  const pi = await import("@mariozechner/pi-coding-agent");
  if (typeof pi.loadSkillsFromDir !== "function") throw new Error("pi-coding-agent has no loadSkillsFromDir");
  return pi;
}

/**
 * The floor: list the folder and read every SKILL.md as text, nothing else. No real
 * loader can do less work and still know every skill's front matter.
 */
export function floor(tree) {
  let count = 0;
  for (const entry of readdirSync(tree, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    readFileSync(join(tree, entry.name, "SKILL.md"), "utf8");
    count += 1;
  }
  return count;
}

/** Runs pi's loader on the tree as a user folder; returns the skill count and its diagnostics. */
export function runPi(pi, tree) {
  const result = pi.loadSkillsFromDir({ dir: tree, source: "user" });
  return { count: result.skills.length, problems: result.diagnostics.length, result };
}

/**
 * Discovery options that make the generated tree skillgate's config skills folder
 * (`<config>/skills`, a link to the tree) and leave every other source empty: no
 * built-ins, an empty data folder and home, no project roots, no packages.
 */
export function skillgateOptions(tree, count) {
  const base = join(WORK_FOLDER, `folders-${count}`);
  const config = join(base, "config");
  const link = join(config, "skills");
  mkdirSync(config, { recursive: true });
  mkdirSync(join(base, "data"), { recursive: true });
  mkdirSync(join(base, "home"), { recursive: true });
  if (!existsSync(link)) symlinkSync(tree, link, "dir");
  return {
    folders: { config, data: join(base, "data"), home: join(base, "home") },
    builtins: false,
    roots: [],
  };
}

/** Summarises a skillgate discovery result: registered skills and anything that is not clean. */
export function skillgateCount(result) {
  let problems = result.diagnostics.length;
  for (const decision of result.decisions) {
    if (decision.decision !== "registered" || decision.reasons.length > 0) problems += 1;
  }
  return { count: result.skills.length, problems };
}
