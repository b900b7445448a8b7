import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHookCommand } from "../../src/extensions/hook-command.js";
import { Registry } from "../../src/extensions/registry.js";
import { loadShellHooks } from "../../src/extensions/shell-hooks.js";
import { eventually } from "../helpers/eventually.js";
import { makeTree } from "../helpers/skill-tree.js";

/** True once `pid` is no longer a live process (gone, or a zombie waiting to be reaped). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") === true;
  } catch {
    return true;
  }
}

/** Waits until every pid is gone (fails the test, naming them, if one outlives the bound). */
async function allGone(pids: readonly number[]): Promise<boolean> {
  return await eventually(`processes ${pids.join(", ")} ended`, () => pids.every(isGone));
}

/** The pids a command wrote, one a line, once the file has them all. */
async function pidsIn(file: string, count: number): Promise<number[]> {
  return await eventually(`${file} holds ${count} pid(s)`, () => {
    if (!existsSync(file)) return false;
    const pids = readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
    return pids.length >= count && pids;
  });
}

async function loadOne(entry: object, options: { timeoutMs?: number; maxOutputBytes?: number } = {}) {
  const tree = makeTree("skillgate-hook-process-");
  const file = join(tree, "hooks.json");
  writeFileSync(file, JSON.stringify([entry]));
  const registry = new Registry();
  await loadShellHooks(registry, file, { scope: "config", cwd: tree, ...options });
  return { tree, registry };
}

describe("shell hook commands: limits and cleanup", () => {
  it("kills a command that runs past its timeout, with its whole process group, and notes it", async () => {
    const command = "sleep 30 & echo $! >> pids; echo $$ >> pids; sleep 30";
    const { tree, registry } = await loadOne({ event: "before_tool", command }, { timeoutMs: 300 });
    const fired = registry.fire("before_tool", { tool: "t", args: {} });
    const started = await pidsIn(join(tree, "pids"), 2);
    expect(await fired).toEqual([]);
    expect(registry.notes).toEqual([
      `before_tool hook failed: Error: hook command timed out after 0.3 s: ${command}`,
    ]);
    expect(await allGone(started)).toBe(true);
  });

  it("clips a long command to one line of 80 characters in its note", async () => {
    const { registry } = await loadOne({ event: "stop", command: `exit 1\n# ${"word ".repeat(30)}` });
    await registry.fire("stop", {});
    expect(registry.notes).toEqual([
      `stop hook failed: Error: hook command exited with code 1: exit 1 # ${"word ".repeat(14).trimEnd()}…`,
    ]);
  });

  it("takes an entry's own timeout (seconds) over the default", async () => {
    const { registry } = await loadOne(
      { event: "stop", command: "sleep 5", timeout: 0.2 },
      { timeoutMs: 60_000 },
    );
    await registry.fire("stop", {});
    expect(registry.notes).toEqual(["stop hook failed: Error: hook command timed out after 0.2 s: sleep 5"]);
  });

  it("kills a command that floods stdout past the cap", async () => {
    const { tree, registry } = await loadOne(
      { event: "after_tool", command: "echo $$ > pids; exec yes" },
      { maxOutputBytes: 4096 },
    );
    const answers = await registry.fire("after_tool", { tool: "t", args: {}, result: "r", status: "ok" });
    expect(answers).toEqual([]);
    expect(registry.notes).toEqual([
      "after_tool hook failed: Error: hook command printed more than 4 KiB on stdout: echo $$ > pids; exec yes",
    ]);
    expect(await allGone(await pidsIn(join(tree, "pids"), 1))).toBe(true);
  });

  it("kills a command that floods stderr past the default cap of 64 KiB", async () => {
    const { registry } = await loadOne({ event: "stop", command: "head -c 200000 /dev/zero >&2; sleep 30" });
    await registry.fire("stop", {});
    expect(registry.notes).toEqual([
      "stop hook failed: Error: hook command printed more than 64 KiB on stderr: head -c 200000 /dev/zero >&2; sleep 30",
    ]);
  });

  it("accepts output exactly at the cap", async () => {
    const { registry } = await loadOne(
      { event: "before_tool", command: `printf '{"deny": "%s"}' "$(head -c 1000 /dev/zero | tr '\\0' a)"` },
      { maxOutputBytes: 1013 },
    );
    expect(await registry.fire("before_tool", { tool: "t", args: {} })).toEqual([{ deny: "a".repeat(1000) }]);
  });

  it("leaves nothing behind when a command exits and left a background process in its group", async () => {
    const { tree, registry } = await loadOne({
      event: "before_tool",
      command: `sleep 30 & echo $! > pids; echo '{"deny": "quick"}'`,
    });
    expect(await registry.fire("before_tool", { tool: "t", args: {} })).toEqual([{ deny: "quick" }]);
    expect(await allGone(await pidsIn(join(tree, "pids"), 1))).toBe(true);
  });

  it("does not wait for a process that left the group holding the pipes", async () => {
    // Such a process is out of reach on purpose (documented); the hook must still end, well
    // before this one would (it outlives the test's own time limit), and it is killed here.
    const cwd = makeTree("skillgate-hook-process-");
    const exit = await runHookCommand({
      command: `setsid sh -c 'echo $$ > escaped; exec sleep 120' & until [ -s escaped ]; do sleep 0.05; done; echo '{}'`,
      input: "",
      cwd,
      env: process.env,
      timeoutMs: 90_000,
      maxOutputBytes: 1024,
    });
    const [escaped] = await pidsIn(join(cwd, "escaped"), 1);
    if (escaped !== undefined) process.kill(escaped, "SIGKILL");
    expect(exit).toEqual({ exitCode: 0, stdout: "{}\n", stderr: "" });
  });

  it("rejects with a note-sized message when the working folder does not exist", async () => {
    const missing = join(makeTree("skillgate-hook-process-"), "gone");
    await expect(
      runHookCommand({
        command: "true",
        input: "",
        cwd: missing,
        env: process.env,
        timeoutMs: 5_000,
        maxOutputBytes: 1,
      }),
    ).rejects.toThrow("hook command could not start (ENOENT): true");
  });

  it("reports a command killed by a signal it did not get from skillgate", async () => {
    await expect(
      runHookCommand({
        command: "kill -9 $$",
        input: "",
        cwd: makeTree("skillgate-hook-process-"),
        env: process.env,
        timeoutMs: 5_000,
        maxOutputBytes: 1024,
      }),
    ).rejects.toThrow("hook command was killed by SIGKILL: kill -9 $$");
  });

  it("survives a command that never reads a large stdin", async () => {
    const exit = await runHookCommand({
      command: "exit 0",
      input: "x".repeat(4 * 1024 * 1024),
      cwd: makeTree("skillgate-hook-process-"),
      env: process.env,
      timeoutMs: 5_000,
      maxOutputBytes: 1024,
    });
    expect(exit.exitCode).toBe(0);
  });
});
