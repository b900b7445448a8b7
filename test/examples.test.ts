import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

const execute = promisify(execFile);
const root = join(import.meta.dirname, "..");
let temporary: string | undefined;

/**
 * Runs a command with a temp folder of its own (TMPDIR), so the test can tell that an example
 * left nothing behind without seeing other tests' temp folders.
 */
function run(command: string, argv: string[], options: { cwd: string }) {
  temporary = mkdtempSync(join(tmpdir(), "skillgate-examples-tmp-"));
  return execute(command, argv, { ...options, env: { ...process.env, TMPDIR: temporary } });
}

// The sandbox keeps its never-changing files (seccomp program, passwd) in one folder per user,
// shared by every skillgate process on purpose (src/runners/sandbox/static-files.ts): not a leftover.
const SHARED_SANDBOX_FILES = `skillgate-sandbox-files-${process.getuid?.() ?? 0}`;

afterEach(() => {
  if (temporary === undefined) return;
  const left = readdirSync(temporary).filter((name) => name !== SHARED_SANDBOX_FILES);
  rmSync(temporary, { recursive: true, force: true });
  temporary = undefined;
  expect(left, "temp folders the example left behind").toEqual([]);
});

beforeAll(async () => {
  // The examples import the built package, as a user's code would.
  if (
    !existsSync(join(root, "dist", "index.js")) ||
    !existsSync(join(root, "dist", "surfaces", "ai-sdk", "index.js"))
  )
    await execute("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root });
}, 120_000);

describe("the README's examples run", () => {
  it("examples/list-skills.mjs lists decisions and prints an index", async () => {
    const { stdout } = await run("node", ["examples/list-skills.mjs"], { cwd: root });
    expect(stdout).toMatch(/^registered +json-tools \(builtin\)$/m);
    expect(stdout).toContain("## Skills");
  });

  it("examples/embed.mjs builds a turn, loads a skill, runs through the broker, and refuses a traversal", async () => {
    const { stdout } = await run("node", ["examples/embed.mjs"], { cwd: root });
    expect(stdout).toContain("Tools: load_skill, read_skill_resource");
    expect(stdout).toContain('load_skill -> ok:\n<skill name="json-tools">');
    // The built-in runs in the sandbox where bubblewrap is installed; elsewhere it is refused.
    expect(stdout).toMatch(/run_skill_script -> (ok|refused) \(rule reads-allowed\)/);
    if (stdout.includes("run_skill_script -> ok"))
      expect(stdout).toContain("--- stdout ---\nVALID: an object with 1 key, nesting depth 1");
    else expect(stdout).toMatch(/run_skill_script -> refused \(rule reads-allowed\):\nHOST: /);
    expect(stdout).toContain('read_skill_resource with a traversal -> HOST: path may not contain ".."');
  });

  it("examples/ai-sdk-agent.mjs runs an AI SDK loop offline: search, load, a repaired run after an approval", async () => {
    const { stdout, stderr } = await run("node", ["examples/ai-sdk-agent.mjs"], { cwd: root });
    expect(stdout).toContain('[tool] search_skills {"query":"backup finished"} -> ok (rule reads-allowed)');
    expect(stdout).toContain(
      '[tool] load_skill {"skill":"backup-check"} -> ok (rule reads-allowed)\n    <skill name="backup-check">',
    );
    expect(stdout).toContain(
      "[approval] run scripts/check.sh of backup-check (local); answers: once, always-chat, decline -> once",
    );
    expect(stdout).toMatch(
      /\[tool\] run_skill_script .*"arguments":"\{\\"target\\": \\"nas\\"\}"\} -> ok \(rule changes-ask\)\n {4}exit code 0 \(ok, \d+ ms\)\n {4}--- stdout ---\n {4}backup finished: \{"target":"nas"\}\n/,
    );
    expect(stdout).toContain(
      'The model saw, last: ["system","user","assistant","tool","assistant","tool","assistant","tool"]',
    );
    expect(stdout).toContain("approval-requested, approval-answered, tool-call-finished\n");
    expect(stdout).toContain("Answer: Last night's backup of nas finished.");
    expect(stderr).toContain(
      "Skill arguments for backup-check/scripts/check.sh were coerced from a JSON string.",
    );
  });
});
