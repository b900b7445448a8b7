/**
 * Generates a folder of N realistic skills for the discovery benchmark, deterministically
 * (seeded), into bench/.work/skills-N/<name>/: SKILL.md (front matter with name,
 * description, license, allowed-tools and a metadata block; a ~1 KB body),
 * scripts/run.py and references/guide.md.
 *
 * A tree is reused when its completion marker (bench/.work/skills-N.complete, outside the
 * tree so no walker sees it) matches this generator's version and seed; otherwise the
 * tree is removed and written again.
 *
 * Run alone: `node bench/generate.mjs 1000 10000`.
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where generated trees live (git-ignored). */
export const WORK_FOLDER = join(dirname(fileURLToPath(import.meta.url)), ".work");

/** Bump when the generated content changes, so stale trees are rewritten. */
const GENERATOR_VERSION = 1;
const SEED = 0x5eed_2024;

const VERBS = [
  "analyze",
  "audit",
  "build",
  "check",
  "clean",
  "compare",
  "convert",
  "deploy",
  "draft",
  "export",
  "extract",
  "format",
  "generate",
  "import",
  "index",
  "lint",
  "merge",
  "migrate",
  "monitor",
  "parse",
  "plan",
  "profile",
  "render",
  "review",
  "scan",
  "summarize",
  "sync",
  "test",
  "translate",
  "validate",
];
const OBJECTS = [
  "pdf",
  "csv",
  "invoice",
  "changelog",
  "docker",
  "kubernetes",
  "terraform",
  "sql",
  "schema",
  "api",
  "openapi",
  "log",
  "metrics",
  "dns",
  "certificate",
  "backup",
  "release",
  "commit",
  "email",
  "calendar",
  "spreadsheet",
  "slide",
  "diagram",
  "image",
  "audio",
  "subtitle",
  "translation",
  "dependency",
  "license",
  "secret",
  "firewall",
  "nginx",
  "postgres",
  "redis",
  "queue",
  "webhook",
  "report",
  "notebook",
  "dataset",
  "contract",
];
const QUALIFIERS = ["", "", "", "quick", "batch", "safe", "team", "local", "remote", "weekly"];
const PURPOSES = [
  "Reads the input files, checks them against the expected structure and writes a short report of what changed",
  "Walks the project, collects every matching file and produces a clean, reviewable summary with line references",
  "Turns messy exports into tidy tables with consistent column names, types and units",
  "Finds common mistakes early and explains each finding with the smallest fix that resolves it",
  "Prepares a step-by-step plan, runs the safe steps and asks before anything that changes shared state",
  "Compares two versions and lists additions, removals and modifications in a stable order",
  "Keeps the output deterministic so the same input always gives byte-identical results",
  "Uses the bundled script for the heavy lifting and the reference guide for edge cases",
];
const TRIGGERS = [
  "Use when the user mentions",
  "Use this skill when asked about",
  "Trigger for requests involving",
  "Helpful whenever a task touches",
  "Use it for any work on",
];
const LICENSES = [
  "MIT",
  "Apache-2.0",
  "BSD-3-Clause",
  "MPL-2.0",
  "Proprietary. LICENSE.txt has complete terms",
];
const TOOL_SETS = [
  "Read Grep Glob",
  "Bash(python3:*) Read Write",
  "Read Write Edit",
  "Bash(git:*) Read",
  "WebFetch Read",
  "Bash(python3:*) Bash(jq:*) Read",
];
const TIERS = ["read", "read", "change", "change", "destructive"];
const EXECUTIONS = ["sandbox", "sandbox", "local", "node", "queue"];
const AUTHORS = ["platform-team", "data-eng", "sre", "docs-guild", "security", "alice", "bob", "carol"];

/** mulberry32: a small, fast, seeded generator; the same seed always gives the same tree. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(next, list) {
  return list[Math.floor(next() * list.length)];
}

/** A description of 100 to 200 characters built from varied parts. */
function description(next, verb, object, qualifier) {
  const lead = `${verb[0].toUpperCase()}${verb.slice(1)} ${qualifier ? `${qualifier} ` : ""}${object} work.`;
  const purpose = `${pick(next, PURPOSES)}.`;
  const trigger = `${pick(next, TRIGGERS)} ${object} files or ${pick(next, OBJECTS)} data.`;
  let text = `${lead} ${purpose} ${trigger}`;
  if (text.length > 200) text = `${lead} ${purpose}`;
  while (text.length < 100) text = `${text} ${pick(next, PURPOSES)}.`;
  // Clip at a word boundary; never leave trailing space (YAML would trim it from a plain scalar).
  if (text.length > 200) text = `${text.slice(0, 197).replace(/[\s,.]+\S*$/, "")}...`;
  return text;
}

/**
 * Front matter in the styles real SKILL.md files use: mostly plain scalars, some quoted
 * descriptions, a few folded (`>-`) descriptions that span lines.
 */
function frontMatter(next, name, text, index) {
  const style = next();
  let descriptionLine;
  if (style < 0.8) {
    descriptionLine = `description: ${text}`;
  } else if (style < 0.95) {
    descriptionLine = `description: "${text}"`;
  } else {
    const middle = text.lastIndexOf(" ", Math.floor(text.length / 2));
    descriptionLine = `description: >-\n  ${text.slice(0, middle)}\n  ${text.slice(middle + 1)}`;
  }
  return [
    "---",
    `name: ${name}`,
    descriptionLine,
    `license: ${pick(next, LICENSES)}`,
    `allowed-tools: ${pick(next, TOOL_SETS)}`,
    "metadata:",
    `  skillgate.tier: ${pick(next, TIERS)}`,
    `  skillgate.execution: ${pick(next, EXECUTIONS)}`,
    `  author: ${pick(next, AUTHORS)}`,
    `  version: "${1 + (index % 3)}.${index % 10}.${index % 7}"`,
    "---",
  ].join("\n");
}

function body(next, name, object) {
  const steps = [
    `Read the ${object} input the user points to; never guess a path.`,
    "Run `python3 scripts/run.py --input <file>` and keep its output as the source of truth.",
    `Check the result against the rules in [the guide](references/guide.md) before reporting.`,
    "Report what was done, what was skipped and why, in that order.",
    `If the ${pick(next, OBJECTS)} side is involved, ask before changing anything shared.`,
  ];
  const lines = [
    `# ${name}`,
    "",
    `This skill handles ${object} tasks end to end. ${pick(next, PURPOSES)}.`,
    "",
    "## Steps",
    "",
    ...steps.map((step, index) => `${index + 1}. ${step}`),
    "",
    "## Notes",
    "",
    `- ${pick(next, PURPOSES)}.`,
    `- ${pick(next, PURPOSES)}.`,
    "- Large inputs are processed in chunks; the script prints progress to stderr.",
    "- Output is plain text unless the user asks for JSON (`--json`).",
    "",
    "## Example",
    "",
    "```",
    `python3 scripts/run.py --input ./data/${object}.txt --json`,
    "```",
    "",
  ];
  let text = lines.join("\n");
  while (text.length < 1000) text += `\n${pick(next, PURPOSES)}.`;
  return `${text}\n`;
}

const SCRIPT = `#!/usr/bin/env python3
"""Reads an input file and prints a short summary."""
import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with open(args.input, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    summary = {"lines": len(lines), "empty": sum(1 for line in lines if not line.strip())}
    print(json.dumps(summary) if args.json else f"{summary['lines']} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;

function guide(name, object) {
  return `# ${name}: guide\n\nEdge cases for ${object} inputs: empty files, very long lines, mixed encodings.\nPrefer reporting a problem to guessing a fix.\n`;
}

/** The folder of a generated tree of `count` skills. */
export function treeFolder(count) {
  return join(WORK_FOLDER, `skills-${count}`);
}

/** The names and contents plan of `count` skills, the same for a given seed. */
function planSkills(count) {
  const next = random(SEED);
  const names = [];
  const used = new Set();
  const plans = [];
  for (let index = 0; index < count; index += 1) {
    const verb = pick(next, VERBS);
    const object = pick(next, OBJECTS);
    const qualifier = pick(next, QUALIFIERS);
    let name = [qualifier, object, verb].filter(Boolean).join("-");
    if (used.has(name)) name = `${name}-${index}`;
    used.add(name);
    names.push(name);
    plans.push({ name, verb, object, qualifier, index });
  }
  return { next, names, plans };
}

/** Writes one planned skill (SKILL.md, scripts/run.py, references/guide.md) below `folder`. */
function writePlannedSkill(next, folder, plan) {
  const skillFolder = join(folder, plan.name);
  mkdirSync(join(skillFolder, "scripts"), { recursive: true });
  mkdirSync(join(skillFolder, "references"), { recursive: true });
  const text = description(next, plan.verb, plan.object, plan.qualifier);
  const skillFile = `${frontMatter(next, plan.name, text, plan.index)}\n\n${body(next, plan.name, plan.object)}`;
  writeFileSync(join(skillFolder, "SKILL.md"), skillFile);
  writeFileSync(join(skillFolder, "scripts", "run.py"), SCRIPT, { mode: 0o755 });
  writeFileSync(join(skillFolder, "references", "guide.md"), guide(plan.name, plan.object));
}

/**
 * Makes sure bench/.work/skills-N holds the generated tree of `count` skills and returns
 * its folder and skill names. Reuses a complete tree.
 */
export function generateSkills(count) {
  const folder = treeFolder(count);
  const marker = `${folder}.complete`;
  const fingerprint = JSON.stringify({ version: GENERATOR_VERSION, seed: SEED, count });
  const { next, names, plans } = planSkills(count);
  if (existsSync(marker) && readFileSync(marker, "utf8") === fingerprint) {
    return { folder, names, reused: true };
  }
  rmSync(marker, { force: true });
  rmSync(folder, { recursive: true, force: true });
  for (const plan of plans) writePlannedSkill(next, folder, plan);
  writeFileSync(marker, fingerprint);
  return { folder, names, reused: false };
}

/** How {@link generateRoots} splits skills over its roots: uneven, as real homes are. */
export const ROOT_SHARES = [0.3, 0.25, 0.2, 0.15, 0.1];

/**
 * Makes sure bench/.work/roots-N/root-1 … root-5 hold `count` skills with distinct names
 * split by {@link ROOT_SHARES} (30 %, 25 %, 20 %, 15 %, 10 %: at 100,000 the first root
 * holds 30,000, over the default per-root cap of 20,000). Reuses complete trees. Returns
 * the root folders and each one's count.
 */
export function generateRoots(count) {
  const folder = join(WORK_FOLDER, `roots-${count}`);
  const marker = `${folder}.complete`;
  const fingerprint = JSON.stringify({ version: GENERATOR_VERSION, seed: SEED, count, shares: ROOT_SHARES });
  const { next, plans } = planSkills(count);
  const counts = ROOT_SHARES.map((share) => Math.floor(share * count));
  counts[0] += count - counts.reduce((sum, each) => sum + each, 0);
  const roots = counts.map((_, index) => join(folder, `root-${index + 1}`));
  if (existsSync(marker) && readFileSync(marker, "utf8") === fingerprint) {
    return { roots, counts, reused: true };
  }
  rmSync(marker, { force: true });
  rmSync(folder, { recursive: true, force: true });
  let start = 0;
  for (const [index, root] of roots.entries()) {
    mkdirSync(root, { recursive: true });
    const share = counts[index];
    for (const plan of plans.slice(start, start + share)) writePlannedSkill(next, root, plan);
    start += share;
  }
  writeFileSync(marker, fingerprint);
  return { roots, counts, reused: false };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = process.argv.slice(2).map(Number);
  for (const size of sizes.length > 0 ? sizes : [1000, 10_000]) {
    const result = generateSkills(size);
    console.log(`${result.reused ? "reused" : "generated"} ${size} skills in ${result.folder}`);
  }
}
