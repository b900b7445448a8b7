import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Registry } from "../../src/extensions/registry.js";
import { loadShellHooks } from "../../src/extensions/shell-hooks.js";
import { makeTree } from "../helpers/skill-tree.js";

/** Writes `entries` as `<tree>/hooks.json` and loads it into a new registry. */
async function loadEntries(entries: unknown, options: { timeoutMs?: number } = {}) {
  const tree = makeTree("skillgate-hooks-");
  const file = join(tree, "hooks.json");
  writeFileSync(file, JSON.stringify(entries));
  const registry = new Registry();
  const note = await loadShellHooks(registry, file, { scope: "config", cwd: tree, ...options });
  return { tree, file, registry, note };
}

// A guard on run_* tools in python3 (docs/hooks.md, "The native shape"), and an entry for an
// unknown event, which is skipped (docs/hooks.md, "The file's note").
const DENY_RM =
  "python3 -c 'import sys, json; d = json.load(sys.stdin); " +
  'print(json.dumps({"deny": "no rm"}) if "rm" in d["args"]["command"] else "logged")\'';

describe("loadShellHooks: the native hooks.json shape", () => {
  it("runs a run_* guard: deny, plain output ignored, a glob that does not match never runs", async () => {
    const tree = makeTree("skillgate-hooks-");
    const marker = join(tree, "ran");
    const { registry, note } = await loadEntries([
      { event: "before_tool", match: "run_*", command: `touch '${marker}'; ${DENY_RM}` },
      { event: "nonsense", command: "true" },
    ]);
    expect(note).toBe('hooks.json: 1 hook(s), 1 skipped (unknown event "nonsense")');
    expect(await registry.fire("before_tool", { tool: "view_file", args: {} })).toEqual([undefined]);
    expect(existsSync(marker)).toBe(false);
    expect(await registry.fire("before_tool", { tool: "run_shell", args: { command: "rm -rf x" } })).toEqual([
      { deny: "no rm" },
    ]);
    expect(existsSync(marker)).toBe(true);
    expect(await registry.fire("before_tool", { tool: "run_shell", args: { command: "ls" } })).toEqual([
      undefined,
    ]);
    expect(registry.notes).toEqual([]);
    expect(registry.dropLoaded().hooks.before_tool).toEqual([]);
  });

  it("marks each hook with its file, scope, command and glob", async () => {
    const { registry, file } = await loadEntries([
      { event: "after_tool", match: "read_*", command: "cat >/dev/null" },
    ]);
    const [hook] = registry.hooks.after_tool;
    expect(hook?.info).toEqual({ origin: file, scope: "config", command: "cat >/dev/null", match: "read_*" });
    expect(registry.countFrom(file).hooks).toBe(1);
  });

  it("keeps the program's own hooks when the file's are dropped", async () => {
    const { registry } = await loadEntries([{ event: "before_tool", command: "true" }]);
    registry.on("before_tool", () => "mine");
    registry.dropLoaded();
    expect(await registry.fire("before_tool", { tool: "x", args: {} })).toEqual(["mine"]);
  });

  it("sends the event as JSON on stdin: the event's name and every payload field", async () => {
    const tree = makeTree("skillgate-hooks-");
    const seen = join(tree, "seen.json");
    const { registry } = await loadEntries([
      { event: "before_tool", command: `cat > '${seen}'` },
      { event: "after_tool", command: `cat > '${seen}.after'` },
    ]);
    const call = {
      scope: { kind: "chat" as const, id: "c1" },
      tool: "run_skill_script",
      args: { skill: "pdf", script: "scripts/run.py" },
      tier: "change" as const,
      skill: "pdf",
    };
    await registry.fire("before_tool", call);
    expect(JSON.parse(readFileSync(seen, "utf8"))).toEqual({ event: "before_tool", ...call });
    await registry.fire("after_tool", { ...call, result: "done", status: "ok" });
    expect(JSON.parse(readFileSync(`${seen}.after`, "utf8"))).toEqual({
      event: "after_tool",
      ...call,
      result: "done",
      status: "ok",
    });
  });

  it("rewrites an after_tool result", async () => {
    const { registry } = await loadEntries([
      {
        event: "after_tool",
        command: `python3 -c 'import sys, json; d = json.load(sys.stdin); print(json.dumps({"result": d["result"].upper()}))'`,
      },
    ]);
    const answers = await registry.fire("after_tool", {
      tool: "read_skill",
      args: {},
      result: "quiet",
      status: "ok",
    });
    expect(answers).toEqual([{ result: "QUIET" }]);
  });

  it("replaces arguments, asks, and lets deny win over everything else", async () => {
    const { registry } = await loadEntries([
      { event: "before_tool", match: "args", command: `echo '{"args": {"path": "safe.txt"}}'` },
      { event: "before_tool", match: "ask", command: `echo '{"ask": "really?", "args": {"n": 1}}'` },
      { event: "before_tool", match: "both", command: `echo '{"deny": "no", "ask": "?", "args": {}}'` },
      { event: "before_tool", match: "empty", command: `echo '{"deny": "  "}'` },
    ]);
    const fire = (tool: string) => registry.fire("before_tool", { tool, args: { path: "/etc/passwd" } });
    expect(await fire("args")).toEqual([{ args: { path: "safe.txt" } }, undefined, undefined, undefined]);
    expect(await fire("ask")).toEqual([undefined, { ask: "really?", args: { n: 1 } }, undefined, undefined]);
    expect(await fire("both")).toEqual([undefined, undefined, { deny: "no" }, undefined]);
    expect(await fire("empty")).toEqual([undefined, undefined, undefined, { deny: "denied by a hook" }]);
  });

  it("reads one JSON object: the whole stdout, or else its last non-empty line", async () => {
    const cases: [string, unknown][] = [
      [`printf '{\\n  "deny": "pretty"\\n}\\n'`, { deny: "pretty" }],
      [`echo checking; echo; echo '{"deny": "last line"}'; echo`, { deny: "last line" }],
      [`echo '{"deny": "first"}'; echo done`, undefined],
      [`echo '["deny"]'`, undefined],
      [`echo '"deny"'`, undefined],
      [`echo '{"deny": 42}'`, undefined],
      [`echo '{"args": [1]}'`, undefined],
      [`echo '{"result": "not for before_tool"}'`, undefined],
      [`echo '{not json'`, undefined],
      [`echo '{"__proto__": {"deny": "polluted"}}'`, undefined],
      ["true", undefined],
    ];
    for (const [command, expected] of cases) {
      const { registry } = await loadEntries([{ event: "before_tool", command }]);
      expect(await registry.fire("before_tool", { tool: "t", args: {} }), command).toEqual([expected]);
      expect(registry.notes, command).toEqual([]);
    }
    expect(({} as Record<string, unknown>).deny).toBeUndefined();
  });

  it("ignores answers to events that take none", async () => {
    const { registry } = await loadEntries([{ event: "before_turn", command: `echo '{"deny": "x"}'` }]);
    expect(await registry.fire("before_turn", { prompt: "hi" })).toEqual([undefined]);
  });

  it("notes a command that fails and leaves its result out; the other hooks still run", async () => {
    const { registry } = await loadEntries([
      { event: "before_tool", command: "echo 'Traceback...' >&2; echo 'ValueError: bad input' >&2; exit 3" },
      { event: "before_tool", command: `echo '{"deny": "second"}'` },
    ]);
    expect(await registry.fire("before_tool", { tool: "t", args: {} })).toEqual([{ deny: "second" }]);
    expect(registry.notes).toEqual([
      "before_tool hook failed: Error: hook command exited with code 3 (ValueError: bad input): echo 'Traceback...' >&2; echo 'ValueError: bad input' >&2; exit 3",
    ]);
  });

  it("notes a command that cannot start: a missing program exits 127 through the shell", async () => {
    const { registry } = await loadEntries([{ event: "stop", command: "no-such-program-here" }]);
    expect(await registry.fire("stop", {})).toEqual([]);
    expect(registry.notes[0]).toMatch(
      /^stop hook failed: Error: hook command exited with code 127 \(.*not found\)/,
    );
  });

  it("applies a glob to the approval's tool, and refuses a glob on an event without a tool", async () => {
    const { tree, registry, note } = await loadEntries([
      { event: "approval", match: "run_*", command: "cat > approval.json" },
      { event: "before_turn", match: "run_*", command: "true" },
    ]);
    expect(note).toBe("hooks.json: 1 hook(s), 1 skipped (entry 2: before_turn has no tool to match)");
    const request = {
      id: "r1",
      tool: "read_skill",
      tier: "read" as const,
      scope: { kind: "chat" as const, id: "c1" },
      summary: "read a skill",
      options: ["once" as const, "decline" as const],
      createdAt: 0,
      expiresAt: 1,
    };
    expect(await registry.fire("approval", { request })).toEqual([undefined]);
    expect(existsSync(join(tree, "approval.json"))).toBe(false);
    await registry.fire("approval", { request: { ...request, tool: "run_skill_script" }, answer: "once" });
    expect(JSON.parse(readFileSync(join(tree, "approval.json"), "utf8"))).toEqual({
      event: "approval",
      request: { ...request, tool: "run_skill_script" },
      answer: "once",
    });
  });

  it("never lets a payload field overwrite the event's name", async () => {
    const { tree, registry } = await loadEntries([{ event: "watch", command: "cat > seen.json" }]);
    await registry.fire("watch", { paths: ["a"], event: "forged" } as { paths: string[] });
    expect(JSON.parse(readFileSync(join(tree, "seen.json"), "utf8"))).toEqual({
      event: "watch",
      paths: ["a"],
    });
  });

  it("skips unusable entries with a reason each and keeps the rest", async () => {
    const { note, registry } = await loadEntries([
      "true",
      { command: "true" },
      { event: 7, command: "true" },
      { event: "before_tool" },
      { event: "before_tool", command: "   " },
      { event: "before_tool", command: "true", match: "" },
      { event: "before_tool", command: "true", timeout: 0 },
      { event: "before_tool", command: "true", timeout: "5" },
      { event: "after_tool", command: "true", timeout: 2.5 },
    ]);
    expect(note).toBe(
      "hooks.json: 1 hook(s), 8 skipped (entry 1 is not an object; entry 2 has no event; entry 3 has no event; " +
        "entry 4 has no command; entry 5 has no command; and 3 more)",
    );
    expect(registry.hooks.after_tool).toHaveLength(1);
    expect(registry.hooks.before_tool).toHaveLength(0);
  });

  it("quotes and clips an odd event name in its note", async () => {
    const { note } = await loadEntries([{ event: `x") ; evil${"y".repeat(100)}`, command: "true" }]);
    expect(note).toBe(`hooks.json: 0 hook(s), 1 skipped (unknown event "x\\") ; evil${"y".repeat(49)}…")`);
  });

  it("runs the command in the given folder", async () => {
    const tree = makeTree("skillgate-hooks-");
    const file = join(tree, "hooks.json");
    writeFileSync(file, JSON.stringify([{ event: "stop", command: "pwd > where.txt" }]));
    const registry = new Registry();
    await loadShellHooks(registry, file, { scope: "project", cwd: tree });
    await registry.fire("stop", {});
    expect(readFileSync(join(tree, "where.txt"), "utf8").trim()).toBe(tree);
  });
});
