import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";

/**
 * What each command loads: the CLI is started as a real process with a preload that records
 * every module Node loads (ES modules through a load hook, CommonJS through the require
 * cache), and a heavy dependency in the list fails the test. Start-up cost is measured in
 * bench/startup.mjs; this guards against the import that would bring it back.
 */

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Dependencies no catalog command and no `--version` may load: each costs tens of milliseconds. */
const HEAVY = [
  "@modelcontextprotocol/sdk",
  "zod",
  "ajv",
  "ajv-formats",
  "yauzl",
  "diff",
  "better-sqlite3",
  "@opentelemetry",
  "typescript",
  "hono",
  "@hono/node-server",
  "tar",
  "wasmoon",
];

/** The whole app's modules: a catalog command goes through the catalog, not these. */
const APP_ONLY = [
  "src/app/skillgate.ts",
  "src/tools/broker.ts",
  "src/runners/router.ts",
  "src/store/store.ts",
  "src/observe/chat-log.ts",
  "src/policy/decide.ts",
];

const HOOKS = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.SKILLGATE_MODULE_LOG, url + "\\n");
  return next(url, context);
}
`;

const PRELOAD = (hooks: string) => `
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
register(${JSON.stringify(hooks)});
const require = createRequire(import.meta.url);
process.on("exit", () => {
  appendFileSync(process.env.SKILLGATE_MODULE_LOG, Object.keys(require.cache).map((file) => "file://" + file + "\\n").join(""));
});
`;

/** Runs `skillgate <argv>` from the sources in a private home; returns the modules it loaded. */
function modulesLoadedBy(
  argv: readonly string[],
  options: { flags?: boolean } = {},
): { code: number | null; modules: string[]; out: string; err: string } {
  const tree = makeTree("skillgate-modules-");
  const hooks = join(tree, "hooks.mjs");
  const preload = join(tree, "preload.mjs");
  const log = join(tree, "modules.log");
  writeFileSync(hooks, HOOKS);
  writeFileSync(preload, PRELOAD(pathToFileURL(hooks).href));
  writeFileSync(log, "");
  const project = join(tree, "project");
  writeSkill(join(project, ".agents", "skills"), "demo", {
    frontMatter: { name: "demo", description: "A demo skill for listing." },
  });
  const flags =
    options.flags === false
      ? []
      : ["--config", join(tree, "config"), "--data", join(tree, "data"), "--root", project, "--no-builtins"];
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      pathToFileURL(preload).href,
      join(repository, "src/surfaces/cli/main.ts"),
      ...flags,
      ...argv,
    ],
    {
      // From the repository, so `--import tsx` resolves; every folder skillgate reads is the tree's.
      cwd: repository,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH ?? "",
        HOME: join(tree, "home"),
        NO_COLOR: "1",
        SKILLGATE_MODULE_LOG: log,
      },
    },
  );
  const modules = readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  return { code: result.status, modules, out: result.stdout, err: result.stderr };
}

/**
 * Ajv's run-time helpers (`ajv/dist/runtime/`: deep equality, string length) are what the
 * validators compiled ahead of time (src/skill/generated/) call; they are a few lines each and
 * load no compiler, so they do not count as loading Ajv.
 */
const PRECOMPILED_RUNTIME = "/node_modules/ajv/dist/runtime/";

/** The heavy packages among `modules`, by package name. */
function heavyAmong(modules: readonly string[]): string[] {
  const found = new Set<string>();
  for (const module of modules) {
    if (module.includes(PRECOMPILED_RUNTIME)) continue;
    for (const name of HEAVY) if (module.includes(`/node_modules/${name}/`)) found.add(name);
  }
  return [...found].sort();
}

function appModulesAmong(modules: readonly string[]): string[] {
  return APP_ONLY.filter((file) => modules.some((module) => module.endsWith(`/${file}`)));
}

describe("what a command loads", () => {
  it("the trace sees heavy modules when they load (store list imports the store and its zip reader)", () => {
    // Guards the guard: a command that needs them must show them, or an empty list proves nothing.
    const { code, modules } = modulesLoadedBy(["store", "list", "--json"]);
    expect(code).toBe(0);
    expect(heavyAmong(modules)).toContain("yauzl");
    expect(appModulesAmong(modules)).toContain("src/store/store.ts");
  });

  it("--version loads neither commander nor any command, and prints package.json's version", () => {
    const { code, modules, out } = modulesLoadedBy(["--version"], { flags: false });
    expect(code).toBe(0);
    const version = (
      JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as { version: string }
    ).version;
    expect(out).toBe(`${version}\n`);
    expect(heavyAmong(modules)).toEqual([]);
    expect(modules.some((module) => module.includes("/node_modules/commander/"))).toBe(false);
    const project = modules.filter((module) => module.includes("/src/"));
    expect(project.some((module) => module.includes("/src/catalog/"))).toBe(false);
    expect(project.some((module) => module.includes("/src/surfaces/cli/commands/"))).toBe(false);
  });

  it("--version among global flags goes through the parser and still loads no command", () => {
    const { code, modules } = modulesLoadedBy(["--version"]);
    expect(code).toBe(0);
    expect(heavyAmong(modules)).toEqual([]);
    expect(modules.some((module) => module.includes("/src/surfaces/cli/commands/"))).toBe(false);
  });

  for (const argv of [
    ["list"],
    ["list", "--json"],
    ["explain", "demo"],
    ["index"],
    ["search", "demo"],
    ["paths"],
    ["capability", "list"],
  ]) {
    it(`${argv.join(" ")} loads no heavy dependency and not the whole app`, () => {
      const { code, modules, err } = modulesLoadedBy(argv);
      expect(err).toBe("");
      expect(code).toBe(0);
      expect(heavyAmong(modules)).toEqual([]);
      expect(appModulesAmong(modules)).toEqual([]);
    });
  }

  it("help NAME loads that command's module alone; --help and an unknown command load every one", () => {
    const commandModules = (modules: readonly string[]) =>
      modules
        .filter((module) => module.includes("/src/surfaces/cli/commands/"))
        .map((module) => module.replace(/.*\/commands\//, ""));
    const help = modulesLoadedBy(["help", "list"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("Usage: skillgate list [options]");
    expect(commandModules(help.modules)).toEqual(["list.ts"]);
    const all = modulesLoadedBy(["--help"]);
    expect(all.code).toBe(0);
    expect(all.out).toContain("mcp [options]");
    expect(commandModules(all.modules)).toContain("mcp.ts");
    const unknown = modulesLoadedBy(["lst"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("(Did you mean list?)");
  });
});
