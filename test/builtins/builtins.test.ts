import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { builtinSkillsFolder, packageRoot } from "../../src/core/package-root.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { loadSkillFolder } from "../../src/skill/load-skill.js";
import { effectiveSchema } from "../../src/skill/parameters-schema.js";
import { readBuiltins } from "../../src/store/builtins.js";
import { checkFolderLimits } from "../../src/store/folder-check.js";
import { builtinFolder, runScript, type ScriptRun } from "./run-script.js";

/** The script a model runs in each built-in. A new built-in must be added here, with smoke cases below. */
const ENTRY_SCRIPTS: Readonly<Record<string, string>> = {
  "cron-explain": "scripts/cron_explain.py",
  "hash-encode": "scripts/hash_encode.mjs",
  "json-tools": "scripts/json_tools.py",
  "regex-lab": "scripts/regex_lab.py",
  "skill-authoring": "scripts/check_skill.py",
  "subnet-calc": "scripts/subnet_calc.py",
};

/** Modules an entry script imports; they are not meant to be run and refuse when they are. */
const HELPER_MODULES: Readonly<Record<string, readonly string[]>> = {
  "skill-authoring": ["scripts/skill_checks.py", "scripts/skill_front_matter.py"],
};

/** One good and one bad argument set per entry script; each skill's own test file goes further. */
const SMOKE: Readonly<Record<string, { good: object; shows: string; bad: object; error: string }>> = {
  "cron-explain": {
    good: { expression: "0 3 * * 1", start: "2025-01-01T00:00:00Z", count: 1 },
    shows: "  2025-01-06T03:00:00+00:00  Monday",
    bad: { expression: "0 3 * *" },
    error: "ERROR: expected 5 fields",
  },
  "hash-encode": {
    good: { operation: "hash", text: "abc", algorithms: ["sha256"] },
    shows: `  ${"sha256".padEnd(16)} ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad`,
    bad: { operation: "hash", text: "abc", algorithms: ["sha0"] },
    error: "ERROR: algorithms must be a non-empty list from:",
  },
  "json-tools": {
    good: { operation: "query", document: '{"a": {"b": [10, 20]}}', path: "a.b[1]" },
    shows: "20",
    bad: { operation: "query", document: '{"a": 1', path: "a" },
    error: "ERROR: document is not valid JSON:",
  },
  "regex-lab": {
    good: { pattern: "(\\d+)-(\\d+)", lines: ["10-20"] },
    shows: '  match 1 at 0-5: "10-20"  1="10"  2="20"',
    bad: { pattern: "(unclosed", lines: ["x"] },
    error: "ERROR: pattern does not compile:",
  },
  "skill-authoring": {
    good: { skill_md: "---\nname: x\ndescription: Does x. Use when x is needed by the user.\n---\nBody.\n" },
    shows: "PASS: 0 errors, 0 warnings, 2 notes",
    bad: { folder_name: "x" },
    error: "ERROR: skill_md must be the whole SKILL.md text",
  },
  "subnet-calc": {
    good: { operation: "info", network: "10.1.2.3/20" },
    shows: "Usable hosts: 10.1.0.1 - 10.1.15.254 (4094)",
    bad: { operation: "info", network: "10.1.2.3/33" },
    error: "ERROR: network",
  },
};

const RUNNABLE = new Set([".py", ".js", ".mjs"]);

function builtinNames(): string[] {
  return readdirSync(builtinSkillsFolder(), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function runnableScripts(skill: string): string[] {
  const folder = join(builtinFolder(skill), "scripts");
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((path) => RUNNABLE.has(extname(path)))
    .map((path) => `scripts/${path.split("\\").join("/")}`)
    .sort();
}

/** The bodies of the ```json blocks in a text: the example arguments a SKILL.md shows a model. */
function jsonExamples(text: string): string[] {
  return [...text.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

/** A run that finished cleanly: nothing left behind, nothing changed, no line posing as skillgate's own. */
function expectCleanRun(run: ScriptRun): void {
  expect(run.leftInWorkingFolder).toEqual([]);
  expect(run.changedSkillFolder).toBe(false);
  expect(run.stdout.split("\n").some((line) => line.startsWith("HOST:"))).toBe(false);
}

describe("the built-in skills shipped in the package", () => {
  it("ships at least five, skill-authoring among them, each with a known entry script", () => {
    const names = builtinNames();
    expect(names.length).toBeGreaterThanOrEqual(5);
    expect(names).toContain("skill-authoring");
    expect(names).toEqual(Object.keys(ENTRY_SCRIPTS).sort());
    expect(Object.keys(SMOKE).sort()).toEqual(names);
  });

  it("are in the package's published files", () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as {
      files: string[];
    };
    expect(manifest.files).toContain("skills");
  });

  it("are all read by the store as built-ins, with no problems", async () => {
    const found = await readBuiltins(builtinSkillsFolder());
    expect(found.diagnostics).toEqual([]);
    expect([...found.skills.keys()].sort()).toEqual(builtinNames());
  });
});

describe.each(builtinNames())("built-in %s", (name) => {
  const folder = builtinFolder(name);
  const entry = ENTRY_SCRIPTS[name] as string;
  const smoke = SMOKE[name] as (typeof SMOKE)[string];

  it("passes strict validation with no diagnostics at all", () => {
    const loaded = loadSkillFolder(folder, { source: "builtin", mode: "strict" });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.governanceInvalid).toBe(false);
    expect(loaded.skill?.name).toBe(name);
  });

  it("is a read-tier sandbox skill without network, with a closed object schema for its script", () => {
    const skill = loadSkillFolder(folder, { source: "builtin", mode: "strict" }).skill;
    expect(skill?.governance.execution).toBe("sandbox");
    expect(skill?.governance.tier).toBe("read");
    expect(skill?.governance.allowedDomains).toEqual([]);
    expect(skill?.governance.parametersSchema.kind).not.toBe("none");
    const schema = effectiveSchema(skill?.governance.parametersSchema ?? { kind: "none" }, "sandbox", entry);
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
  });

  it("stays inside the store's limits and holds only regular files", async () => {
    const limits = await checkFolderLimits(folder);
    expect(limits.files.length).toBeGreaterThan(1);
    expect(hashSkillFolder(folder).diagnostics).toEqual([]);
  });

  it("holds only its entry script and known helper modules, and its body names each", () => {
    const expected = [entry, ...(HELPER_MODULES[name] ?? [])].sort();
    expect(runnableScripts(name)).toEqual(expected);
    const body = loadSkillFolder(folder, { source: "builtin", mode: "strict" }).skill?.text() ?? "";
    for (const script of expected) expect(body).toContain(script);
  });

  it("shows example arguments that its schema accepts and its script runs cleanly", () => {
    const skill = loadSkillFolder(folder, { source: "builtin", mode: "strict" }).skill;
    const examples = jsonExamples(skill?.text() ?? "");
    expect(examples.length).toBeGreaterThan(0);
    const validate = new Ajv2020({ strict: false }).compile(
      effectiveSchema(skill?.governance.parametersSchema ?? { kind: "none" }, "sandbox", entry),
    );
    for (const example of examples) {
      const args: unknown = JSON.parse(example);
      expect(validate(args), `${example}\n${JSON.stringify(validate.errors)}`).toBe(true);
      const run = runScript(name, entry, args);
      expect(run.status, `${example}\n${run.stdout}${run.stderr}`).toBe(0);
      expect(run.stdout.startsWith("ERROR:")).toBe(false);
      expect(run.stderr).toBe("");
      expectCleanRun(run);
    }
  });

  it("runs good arguments, the same from stdin and from SKILLGATE_SKILL_ARGS", () => {
    const fromStdin = runScript(name, entry, smoke.good);
    expect(fromStdin.status).toBe(0);
    expect(fromStdin.stdout.split("\n")).toContain(smoke.shows);
    expectCleanRun(fromStdin);
    const fromEnvironment = runScript(name, entry, smoke.good, { via: "env" });
    expect(fromEnvironment.status).toBe(0);
    expect(fromEnvironment.stdout).toBe(fromStdin.stdout);
  });

  it.each([
    ["bad arguments for the script", () => smoke.bad, () => smoke.error],
    ["an unknown argument", () => ({ ...smoke.good, bogus: 1 }), () => "ERROR: unknown argument bogus"],
    ["an array instead of an object", () => "[1, 2]", () => "ERROR: arguments must be a JSON object"],
    ["text that is not JSON", () => "run it please", () => "ERROR: arguments are not valid JSON"],
    ["nothing at all", () => "", () => "ERROR: no arguments"],
  ])("refuses %s with exit 2 and an ERROR: message, printing nothing else first", (_label, input, error) => {
    const run = runScript(name, entry, input());
    expect(run.status).toBe(2);
    expect(run.stdout.startsWith(error()), run.stdout).toBe(true);
    expect(run.stderr).toBe("");
    expectCleanRun(run);
  });

  it.each(HELPER_MODULES[name] ?? [])("helper module %s refuses to run on its own", (helper) => {
    const run = runScript(name, helper, smoke.good);
    expect(run.status).toBe(2);
    expect(run.stdout).toMatch(/^ERROR: \S+ is a helper module; run scripts\/check_skill\.py instead\n$/);
    expectCleanRun(run);
  });
});
