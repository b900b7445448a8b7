import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ARGV_TWICE } from "../../../src/app/run-skill-script.js";
import { requireBubblewrap } from "../../runners/sandbox/harness.js";
import { type CliSandbox, cliSandbox } from "./harness.js";

// Prints the command line after the interpreter and the JSON read on stdin, one line each.
const PYTHON =
  "import json, sys\nprint(json.dumps(sys.argv[1:]))\nprint(json.dumps(json.load(sys.stdin), sort_keys=True))\n";
const NODE =
  "import { readFileSync } from 'node:fs';\n" +
  "console.log(JSON.stringify(process.argv.slice(2)));\n" +
  "console.log(JSON.stringify(JSON.parse(readFileSync(0, 'utf8'))));\n";

beforeAll(() => requireBubblewrap());

/** A sandboxed skill `args` (read tier: no ask) and a trusted local copy, `args-local`. */
function argvSandbox(): CliSandbox {
  const sandbox = cliSandbox();
  sandbox.writeConfig("runners:\n  local:\n    trusted: [args-local]\n");
  for (const [name, execution] of [
    ["args", "sandbox"],
    ["args-local", "local"],
  ] as const) {
    const folder = join(sandbox.skills, name);
    mkdirSync(join(folder, "scripts"), { recursive: true });
    writeFileSync(
      join(folder, "SKILL.md"),
      `---\nname: ${name}\ndescription: Prints its argv.\nmetadata:\n  skillgate.execution: ${execution}\n  skillgate.tier: read\n---\nRun scripts/argv.py FILE.\n`,
    );
    writeFileSync(join(folder, "scripts", "argv.py"), PYTHON);
    writeFileSync(join(folder, "scripts", "argv.mjs"), NODE);
  }
  return sandbox;
}

describe("skillgate run … -- ARG...", () => {
  it("passes what follows -- to the script after its path, in the sandbox and on the host", async () => {
    const sandbox = argvSandbox();
    for (const skill of ["args", "args-local"])
      for (const script of ["scripts/argv.py", "scripts/argv.mjs"]) {
        const result = await sandbox.run(["run", skill, script, "--", "in put.pdf", "--help", "-x", ""]);
        expect(result.err, `${skill} ${script}`).toBe("");
        expect(result.code).toBe(0);
        const [argv, json] = result.out.trimEnd().split("\n");
        expect(JSON.parse(argv ?? "")).toEqual(["in put.pdf", "--help", "-x", ""]);
        expect(JSON.parse(json ?? "")).toEqual({});
      }
  });

  it("--args without argv keeps reaching the script as JSON, without the argv", async () => {
    const sandbox = argvSandbox();
    const result = await sandbox.run([
      "run",
      "args",
      "scripts/argv.py",
      "--args",
      '{"mode": "fast"}',
      "--",
      "a",
    ]);
    expect(result.out).toBe('["a"]\n{"mode": "fast"}\n');
    expect(result.code).toBe(0);
  });

  it("an argv inside --args alone is passed too", async () => {
    const sandbox = argvSandbox();
    const result = await sandbox.run(["run", "args", "scripts/argv.py", "--args", '{"argv": ["b"], "n": 1}']);
    expect(result.out).toBe('["b"]\n{"n": 1}\n');
  });

  it("an argv in --args and arguments after -- together are refused; nothing runs", async () => {
    const sandbox = argvSandbox();
    const result = await sandbox.run([
      "run",
      "args",
      "scripts/argv.py",
      "--args",
      '{"argv": ["b"]}',
      "--",
      "a",
    ]);
    expect(result.out).toBe("");
    expect(result.err).toBe(`${ARGV_TWICE}\n`);
    expect(result.code).toBe(1);
    expect(readAudit(sandbox)).not.toContain("run_skill_script");
  });

  it("--args the tool refuses stays its refusal when arguments follow --", async () => {
    const sandbox = argvSandbox();
    const array = await sandbox.run(["run", "args", "scripts/argv.py", "--args", '["a"]', "--", "a"]);
    expect(array.err).toMatch(/^HOST: arguments was an array; send an object/);
    expect(array.code).toBe(1);
    const nothing = await sandbox.run(["run", "args", "scripts/argv.py", "--args", "null", "--", "a"]);
    expect(nothing.out).toBe('["a"]\n{}\n');
  });

  it("arguments after the script without -- are a usage error (exit 2), naming the -- form", async () => {
    const sandbox = argvSandbox();
    const result = await sandbox.run(["run", "args", "scripts/argv.py", "input.pdf"]);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain("put the script's arguments after --");
    expect(result.err).toContain("skillgate run args scripts/argv.py -- input.pdf");
    const quoted = await sandbox.run(["run", "args", "scripts/argv.py", "in put.pdf", "it's"]);
    expect(quoted.err).toContain("skillgate run args scripts/argv.py -- 'in put.pdf' 'it'\\''s'");
    const stray = await sandbox.run(["run", "args", "scripts/argv.py", "x", "--", "y"]);
    expect(stray.code).toBe(2);
  });

  it("a hostile argv from the command line gets the tool's refusal and code", async () => {
    const sandbox = argvSandbox();
    const many = Array.from({ length: 257 }, (_, index) => String(index));
    const result = await sandbox.run(["run", "args", "scripts/argv.py", "--", ...many]);
    expect(result.err).toMatch(/^HOST: arguments\.argv has 257 items.*\[argv_too_many\]\n/);
    expect(result.code).toBe(1);
    expect(readAudit(sandbox)).toContain('"errorKind":"argv_too_many"');
  });

  it("--help shows the -- form", async () => {
    const sandbox = argvSandbox();
    const help = await sandbox.run(["run", "--help"]);
    expect(help.out).toContain("[argv...]");
    expect(help.out).toContain("Everything after -- is passed to the script after its path");
  });
});

function readAudit(sandbox: CliSandbox): string {
  try {
    return readFileSync(join(sandbox.data, "audit", "audit.jsonl"), "utf8");
  } catch {
    return "";
  }
}
