import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunRequest } from "../../src/runners/contract.js";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { RunnerRouter } from "../../src/runners/router.js";
import { SandboxRunner } from "../../src/runners/sandbox/sandbox-runner.js";
import {
  argvProblem,
  MAX_SCRIPT_ARGV_BYTES,
  MAX_SCRIPT_ARGV_ITEMS,
  withScriptArgv,
} from "../../src/runners/script-argv.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { requestFor, runnerTree, writeSkillFolder } from "./helpers.js";
import { expectStatus, requireBubblewrap } from "./sandbox/harness.js";

// What each script prints: its whole command line after the interpreter, and the JSON it read.
const SCRIPTS = {
  "scripts/argv.py":
    "import json, sys\nprint(json.dumps({'argv': sys.argv, 'json': json.load(sys.stdin)}))\n",
  "scripts/argv.mjs":
    "import { readFileSync } from 'node:fs';\n" +
    "console.log(JSON.stringify({ argv: process.argv.slice(1), json: JSON.parse(readFileSync(0, 'utf8')) }));\n",
  "scripts/argv.sh": 'printf "%s\\n" "$0" "$#" "$@"\n',
};

// Spaces, quotes, an empty item, option-looking items, a newline, non-ASCII: each arrives as one item.
const ARGV = ["input file.pdf", "--out", "", "-x", 'it\'s "quoted"', "two\nlines", "é✓", "--", "$HOME"];

beforeAll(() => requireBubblewrap());

const closing: SandboxRunner[] = [];
afterEach(async () => {
  for (const runner of closing.splice(0)) await runner.close();
});

function setUp() {
  const tree = runnerTree();
  const folder = writeSkillFolder(tree.skills, "argv-demo", SCRIPTS);
  const snapshots = new SnapshotStore({ dataFolder: tree.data });
  const local = new LocalRunner({ dataFolder: tree.data, isTrusted: () => true, snapshots });
  const sandbox = new SandboxRunner();
  const fresh = new SandboxRunner({ prestart: false });
  closing.push(sandbox, fresh);
  return { folder, snapshots, local, sandbox, fresh };
}

function withArgv(request: RunRequest, argv: readonly string[]): RunRequest {
  return { ...request, argv };
}

describe("argv after the script's path", () => {
  it("the local runner gives a Python script sys.argv[1:] and a Node script process.argv.slice(2)", async () => {
    const { folder, local } = setUp();
    const python = await local.run(
      withArgv(requestFor(folder, "scripts/argv.py", { arguments: { mode: "x" } }), ARGV),
    );
    expectStatus(python, "ok");
    const fromPython = JSON.parse(python.stdout) as { argv: string[]; json: unknown };
    expect(fromPython.argv.slice(1)).toEqual(ARGV);
    expect(fromPython.argv[0]).toMatch(/\/scripts\/argv\.py$/);
    expect(fromPython.json).toEqual({ mode: "x" });
    const node = await local.run(withArgv(requestFor(folder, "scripts/argv.mjs"), ARGV));
    expectStatus(node, "ok");
    const fromNode = JSON.parse(node.stdout) as { argv: string[]; json: unknown };
    expect(fromNode.argv.slice(1)).toEqual(ARGV);
    expect(fromNode.json).toEqual({});
  });

  it("the sandbox, started ahead (the launcher) or fresh, passes the same argv to Python, Node and bash", async () => {
    const { folder, snapshots, sandbox, fresh } = setUp();
    for (const runner of [sandbox, fresh]) {
      const router = new RunnerRouter({ snapshots, runners: { sandbox: runner } });
      for (let round = 0; round < 2; round += 1) {
        const python = await router.run(
          withArgv(
            requestFor(folder, "scripts/argv.py", { execution: "sandbox", arguments: { n: round } }),
            ARGV,
          ),
        );
        expectStatus(python, "ok");
        expect(JSON.parse(python.stdout)).toEqual({
          argv: ["/skill/scripts/argv.py", ...ARGV],
          json: { n: round },
        });
        const node = await router.run(
          withArgv(requestFor(folder, "scripts/argv.mjs", { execution: "sandbox" }), ARGV),
        );
        expectStatus(node, "ok");
        expect(JSON.parse(node.stdout)).toEqual({ argv: ["/skill/scripts/argv.mjs", ...ARGV], json: {} });
        const shell = await router.run(
          withArgv(requestFor(folder, "scripts/argv.sh", { execution: "sandbox" }), ARGV),
        );
        expectStatus(shell, "ok");
        expect(shell.stdout).toBe(`${["/skill/scripts/argv.sh", String(ARGV.length), ...ARGV].join("\n")}\n`);
      }
    }
  });

  it("no argv and an empty one are the same: nothing after the script's path", async () => {
    const { folder, local, snapshots, sandbox } = setUp();
    const router = new RunnerRouter({ snapshots, runners: { sandbox, local } });
    for (const execution of ["local", "sandbox"] as const)
      for (const argv of [undefined, []]) {
        const request = requestFor(folder, "scripts/argv.py", { execution });
        const result = await router.run(argv === undefined ? request : withArgv(request, argv));
        expectStatus(result, "ok");
        expect((JSON.parse(result.stdout) as { argv: string[] }).argv).toHaveLength(1);
      }
  });

  it("both runners refuse an argv they cannot pass, with invalid_argv, and run nothing", async () => {
    const { folder, local, snapshots, sandbox } = setUp();
    const router = new RunnerRouter({ snapshots, runners: { sandbox, local } });
    const hostile: unknown[] = [
      ["a\0b"],
      Array.from({ length: MAX_SCRIPT_ARGV_ITEMS + 1 }, () => "x"),
      ["x".repeat(MAX_SCRIPT_ARGV_BYTES + 1)],
      [1],
      ["\ud800"],
    ];
    for (const execution of ["local", "sandbox"] as const)
      for (const argv of hostile) {
        const request = { ...requestFor(folder, "scripts/argv.py", { execution }), argv } as RunRequest;
        const result = await router.run(request);
        expect(result.status, `${execution} ${JSON.stringify(argv).slice(0, 40)}`).toBe("refused");
        expect(result.code).toBe("invalid_argv");
        expect(result.message).toMatch(
          /^HOST: the command-line arguments for scripts\/argv\.py cannot be passed/,
        );
        expect(result.stdout).toBe("");
      }
  });
});

describe("argvProblem", () => {
  it("names what is wrong, at the limits exactly", () => {
    expect(argvProblem([])).toBeUndefined();
    expect(argvProblem([""])).toBeUndefined();
    expect(argvProblem(Array.from({ length: MAX_SCRIPT_ARGV_ITEMS }, () => "x"))).toBeUndefined();
    expect(argvProblem(["x".repeat(MAX_SCRIPT_ARGV_BYTES)])).toBeUndefined();
    expect(argvProblem(["😀"])).toBeUndefined();
    expect(argvProblem("a b")).toEqual({ kind: "not_list" });
    expect(argvProblem({ 0: "a" })).toEqual({ kind: "not_list" });
    expect(argvProblem(["a", null])).toEqual({ kind: "not_text", index: 1, type: "null" });
    expect(argvProblem([["a"]])).toEqual({ kind: "not_text", index: 0, type: "array" });
    expect(argvProblem([true])).toEqual({ kind: "not_text", index: 0, type: "boolean" });
    expect(argvProblem(["ok", "a\0"])).toEqual({ kind: "nul", index: 1 });
    expect(argvProblem(["\udc00x"])).toEqual({ kind: "not_unicode", index: 0 });
    expect(argvProblem(Array.from({ length: MAX_SCRIPT_ARGV_ITEMS + 1 }, () => ""))).toEqual({
      kind: "too_many",
      count: MAX_SCRIPT_ARGV_ITEMS + 1,
    });
    // Bytes, not characters: 16,385 two-byte characters are over 32 KiB.
    expect(argvProblem(["é".repeat(MAX_SCRIPT_ARGV_BYTES / 2 + 1)])).toEqual({
      kind: "too_long",
      bytes: MAX_SCRIPT_ARGV_BYTES + 2,
    });
  });

  it("puts argv after the script, and after -- for dotnet run, whose own options follow the file", () => {
    const python = { command: "/usr/bin/python3", args: ["-B", "/s/x.py"] };
    expect(withScriptArgv("python", python, ["-h"]).args).toEqual(["-B", "/s/x.py", "-h"]);
    expect(withScriptArgv("python", python, [])).toBe(python);
    const dotnet = { command: "/usr/bin/dotnet", args: ["run", "/s/x.cs", "-p:PublishAot=false"] };
    expect(withScriptArgv("csharp", dotnet, ["a"]).args).toEqual([
      "run",
      "/s/x.cs",
      "-p:PublishAot=false",
      "--",
      "a",
    ]);
  });
});
