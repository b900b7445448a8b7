import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SETTINGS_EVENTS } from "../../src/extensions/claude-hook-io.js";
import type { EventName } from "../../src/extensions/events.js";
import { Registry } from "../../src/extensions/registry.js";
import { loadShellHooks } from "../../src/extensions/shell-hooks.js";
import { makeTree } from "../helpers/skill-tree.js";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "hooks");

/** Writes `settings` as `<tree>/settings.json` and loads it; commands run in `tree`. */
async function loadSettings(settings: unknown, tree = makeTree("skillgate-hooks-settings-")) {
  const file = join(tree, "settings.json");
  writeFileSync(file, JSON.stringify(settings));
  const registry = new Registry();
  const note = await loadShellHooks(registry, file, { scope: "config", cwd: tree });
  return { tree, file, registry, note };
}

/** One event with one group of one command. */
function one(event: string, command: string, matcher?: string, extra: object = {}) {
  return {
    hooks: {
      [event]: [
        { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command, ...extra }] },
      ],
    },
  };
}

const call = {
  scope: { kind: "chat" as const, id: "chat-7" },
  tool: "run_skill_script",
  args: { command: "ls" },
};
const after = { ...call, result: "file.txt", status: "ok" as const };

describe("loadShellHooks: the agent settings shape", () => {
  it("maps every event name it knows, with or without the outer hooks key", async () => {
    const events = Object.fromEntries(
      Object.keys(SETTINGS_EVENTS).map((name) => [name, [{ hooks: [{ type: "command", command: "true" }] }]]),
    );
    for (const settings of [{ hooks: events }, events, { permissions: { allow: [] }, hooks: events }]) {
      const { registry, note } = await loadSettings(settings);
      expect(note).toBe("settings.json: 9 hook(s)");
      const counts = Object.fromEntries(
        Object.entries(registry.hooks).map(([event, hooks]) => [event, hooks.length]),
      );
      expect(counts).toEqual({
        session_start: 1,
        before_turn: 1,
        after_turn: 1,
        before_tool: 1,
        after_tool: 1,
        stop: 1,
        compact: 1,
        approval: 1,
        background_done: 1,
        watch: 0,
      } satisfies Record<EventName, number>);
    }
    expect(SETTINGS_EVENTS).toEqual({
      PreToolUse: "before_tool",
      PostToolUse: "after_tool",
      UserPromptSubmit: "before_turn",
      Stop: "after_turn",
      SessionStart: "session_start",
      SessionEnd: "stop",
      PreCompact: "compact",
      Notification: "approval",
      SubagentStop: "background_done",
    });
  });

  it("skips what it cannot use, with a reason each, and keeps the rest", async () => {
    const { note, registry } = await loadSettings({
      hooks: {
        PermissionRequest: [],
        PreToolUse: [
          { matcher: "(", hooks: [{ type: "command", command: "true" }] },
          { matcher: 3, hooks: [] },
          { matcher: "x" },
          "not a group",
          {
            hooks: [
              { type: "prompt", prompt: "is this fine?" },
              { type: "command" },
              { type: "command", command: "true", timeout: -1 },
              { type: "command", command: "true", timeout: 601 },
              { command: "true" },
            ],
          },
        ],
        Stop: {},
      },
    });
    expect(note).toBe(
      'settings.json: 1 hook(s), 10 skipped (unknown event "PermissionRequest"; ' +
        'PreToolUse[0]: invalid matcher "(" (not a regular expression); PreToolUse[1]: matcher is not a string; ' +
        "PreToolUse[2] has no hooks list; PreToolUse[3] is not an object; and 5 more)",
    );
    expect(registry.hooks.before_tool.map((hook) => hook.info.command)).toEqual(["true"]);
  });

  it("matches the whole tool name: empty, * and absent match all; a regular expression must match it all", async () => {
    const cases: [matcher: string | undefined, tool: string, runs: boolean][] = [
      [undefined, "run_skill_script", true],
      ["", "read_skill", true],
      ["*", "read_skill", true],
      ["run_skill_script", "run_skill_script", true],
      ["run", "run_skill_script", false],
      ["read_skill|run_skill_script", "run_skill_script", true],
      ["Edit|Write", "run_skill_script", false],
      ["mcp__.*", "mcp__github__search", true],
      ["mcp__.*", "run_mcp__x", false],
      ["Run_skill_script", "run_skill_script", false],
    ];
    for (const [matcher, tool, runs] of cases) {
      const { registry } = await loadSettings(one("PreToolUse", "echo ran >&2; exit 2", matcher));
      const answers = await registry.fire("before_tool", { ...call, tool });
      expect(answers, `${matcher} on ${tool}`).toEqual([runs ? { deny: "ran" } : undefined]);
    }
  });

  it("sends each event the input that shape's hooks read", async () => {
    const tree = makeTree("skillgate-hooks-settings-");
    const events = Object.fromEntries(
      Object.keys(SETTINGS_EVENTS).map((name) => [
        name,
        [{ hooks: [{ type: "command", command: `cat > ${name}.json` }] }],
      ]),
    );
    const { registry } = await loadSettings({ hooks: events }, tree);
    const scope = call.scope;
    await registry.fire("before_tool", call);
    await registry.fire("after_tool", after);
    await registry.fire("before_turn", { scope, prompt: "hello" });
    await registry.fire("after_turn", { scope, text: "answered" });
    await registry.fire("session_start", { scope });
    await registry.fire("stop", { scope, reason: "closed" });
    await registry.fire("compact", { scope });
    await registry.fire("background_done", { scope, id: "q1", status: "ok" });
    const request = {
      id: "r1",
      tool: "run_skill_script",
      tier: "change" as const,
      scope,
      summary: "run pdf/scripts/fill.py",
      options: ["once" as const, "decline" as const],
      createdAt: 0,
      expiresAt: 1,
    };
    await registry.fire("approval", { scope, request });
    expect(registry.notes).toEqual([]);
    const input = (name: string) => JSON.parse(readFileSync(join(tree, `${name}.json`), "utf8"));
    const base = (name: string) => ({ session_id: "chat-7", cwd: tree, hook_event_name: name });
    expect(input("PreToolUse")).toEqual({
      ...base("PreToolUse"),
      tool_name: "run_skill_script",
      tool_input: call.args,
    });
    expect(input("PostToolUse")).toEqual({
      ...base("PostToolUse"),
      tool_name: "run_skill_script",
      tool_input: call.args,
      tool_response: "file.txt",
    });
    expect(input("UserPromptSubmit")).toEqual({ ...base("UserPromptSubmit"), prompt: "hello" });
    expect(input("Stop")).toEqual({
      ...base("Stop"),
      stop_hook_active: false,
      last_assistant_message: "answered",
    });
    expect(input("SubagentStop")).toEqual({ ...base("SubagentStop"), stop_hook_active: false });
    expect(input("SessionStart")).toEqual({ ...base("SessionStart"), source: "startup" });
    expect(input("SessionEnd")).toEqual({ ...base("SessionEnd"), reason: "other" });
    expect(input("PreCompact")).toEqual({ ...base("PreCompact"), trigger: "auto", custom_instructions: "" });
    expect(input("Notification")).toEqual({
      ...base("Notification"),
      message: "skillgate needs your approval: run pdf/scripts/fill.py",
      notification_type: "permission_prompt",
    });
  });

  it("runs a Notification hook when a person is asked, not when they answered", async () => {
    const tree = makeTree("skillgate-hooks-settings-");
    const { registry } = await loadSettings(one("Notification", "echo x >> notified"), tree);
    const request = {
      id: "r1",
      tool: "t",
      tier: "change" as const,
      scope: call.scope,
      summary: "s",
      options: ["once" as const],
      createdAt: 0,
      expiresAt: 1,
    };
    await registry.fire("approval", { request, answer: "once" });
    expect(existsSync(join(tree, "notified"))).toBe(false);
    await registry.fire("approval", { request });
    expect(readFileSync(join(tree, "notified"), "utf8")).toBe("x\n");
  });

  it("matches SessionStart's source as sent (startup), so a hook for resumed sessions does not run", async () => {
    const { registry } = await loadSettings({
      hooks: {
        SessionStart: [
          { matcher: "resume|compact", hooks: [{ type: "command", command: "exit 1" }] },
          { matcher: "startup", hooks: [{ type: "command", command: "exit 3" }] },
        ],
      },
    });
    await registry.fire("session_start", {});
    expect(registry.notes).toEqual([
      "session_start hook failed: Error: hook command exited with code 3: exit 3",
    ]);
  });

  it("PreToolUse: exit 2 denies with stderr as the reason; other exit codes are noted and do not block", async () => {
    const { registry } = await loadSettings({
      hooks: {
        PreToolUse: [
          { hooks: [{ type: "command", command: "echo 'no shell today' >&2; exit 2" }] },
          { hooks: [{ type: "command", command: "exit 2" }] },
          { hooks: [{ type: "command", command: "echo broken >&2; exit 1" }] },
        ],
      },
    });
    expect(await registry.fire("before_tool", call)).toEqual([
      { deny: "no shell today" },
      { deny: "denied by a hook" },
    ]);
    expect(registry.notes).toEqual([
      "before_tool hook failed: Error: hook command exited with code 1 (broken): echo broken >&2; exit 1",
    ]);
  });

  it("PreToolUse: permissionDecision deny and ask, allow never widens, updatedInput replaces the arguments", async () => {
    const tree = makeTree("skillgate-hooks-settings-");
    const { registry } = await loadSettings(
      one("PreToolUse", `node '${join(FIXTURES, "permission.mjs")}'`),
      tree,
    );
    const fire = (mode: string) => registry.fire("before_tool", { ...call, args: { mode } });
    expect(await fire("deny")).toEqual([{ deny: "mode is deny" }]);
    expect(await fire("ask")).toEqual([{ ask: "mode is ask" }]);
    expect(await fire("allow")).toEqual([undefined]);
    expect(await fire("rewrite")).toEqual([{ args: { mode: "rewritten" } }]);
    expect(await fire("none")).toEqual([undefined]);
    expect(registry.notes).toEqual([]);
  });

  it("PreToolUse: answers given inline, the older decision field, and precedence", async () => {
    const answer = (output: object) => `echo '${JSON.stringify(output)}'`;
    const cases: [output: object, expected: unknown][] = [
      [{ decision: "block", reason: "legacy" }, { deny: "legacy" }],
      [{ decision: "block" }, { deny: "denied by a hook" }],
      [{ decision: "approve", reason: "fine" }, undefined],
      [{ hookSpecificOutput: { permissionDecision: "deny" } }, { deny: "denied by a hook" }],
      [{ hookSpecificOutput: { permissionDecision: "allow" }, decision: "block", reason: "x" }, undefined],
      [
        {
          hookSpecificOutput: {
            permissionDecision: "deny",
            permissionDecisionReason: "d",
            updatedInput: { a: 1 },
          },
        },
        { deny: "d" },
      ],
      [
        { hookSpecificOutput: { permissionDecision: "ask", updatedInput: { a: 1 } } },
        { ask: "a hook asks a person to approve this call", args: { a: 1 } },
      ],
      [{ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { a: 2 } } }, { args: { a: 2 } }],
      [{ hookSpecificOutput: { updatedInput: "not an object" } }, undefined],
      [{ hookSpecificOutput: { permissionDecision: "defer" } }, undefined],
      [{ continue: false, stopReason: "stop everything" }, undefined],
    ];
    for (const [output, expected] of cases) {
      const { registry } = await loadSettings(one("PreToolUse", answer(output)));
      expect(await registry.fire("before_tool", call), JSON.stringify(output)).toEqual([expected]);
    }
  });

  it("PostToolUse: exit 2, a block decision and additionalContext become HOST: notes on the result", async () => {
    const cases: [command: string, result: string | undefined][] = [
      ["echo 'lint failed' >&2; exit 2", "file.txt\n\nHOST: hook: lint failed"],
      [`echo '{"decision": "block", "reason": "too long"}'`, "file.txt\n\nHOST: hook: too long"],
      [
        `echo '{"decision": "block", "reason": "r", "hookSpecificOutput": {"additionalContext": "c"}}'`,
        "file.txt\n\nHOST: hook: r\nHOST: hook: c",
      ],
      [`echo '{"hookSpecificOutput": {"additionalContext": "  "}}'`, undefined],
      ["echo 'plain text is not read'", undefined],
    ];
    for (const [command, result] of cases) {
      const { registry } = await loadSettings(one("PostToolUse", command));
      expect(await registry.fire("after_tool", after), command).toEqual([
        result === undefined ? undefined : { result },
      ]);
    }
  });

  it("other events: exit 2 cannot block them and is noted; their answers are not used", async () => {
    const { registry } = await loadSettings({
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'no prompts' >&2; exit 2" }] }],
        Stop: [
          { hooks: [{ type: "command", command: `echo '{"decision": "block", "reason": "keep going"}'` }] },
        ],
      },
    });
    expect(await registry.fire("before_turn", { prompt: "hi" })).toEqual([]);
    expect(await registry.fire("after_turn", { text: "done" })).toEqual([undefined]);
    expect(registry.notes).toEqual([
      "before_turn hook failed: Error: hook command exited with code 2, but UserPromptSubmit cannot be blocked (no prompts): echo 'no prompts' >&2; exit 2",
    ]);
  });

  it("takes a hook's timeout in seconds", async () => {
    const { registry } = await loadSettings(one("SessionEnd", "sleep 5", undefined, { timeout: 0.2 }));
    await registry.fire("stop", {});
    expect(registry.notes).toEqual(["stop hook failed: Error: hook command timed out after 0.2 s: sleep 5"]);
  });
});

describe("existing hook scripts run unchanged", () => {
  it("a python guard found through the project folder variable, exiting 2 to block", async () => {
    const project = makeTree("skillgate-hooks-project-");
    mkdirSync(join(project, ".claude", "hooks"), { recursive: true });
    copyFileSync(join(FIXTURES, "block-rm.py"), join(project, ".claude", "hooks", "block-rm.py"));
    const { registry } = await loadSettings(
      one("PreToolUse", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.py', "run_skill_script"),
      project,
    );
    expect(await registry.fire("before_tool", { ...call, args: { command: "rm -rf build" } })).toEqual([
      { deny: "Blocked: rm is not allowed here" },
    ]);
    expect(await registry.fire("before_tool", { ...call, args: { command: "ls" } })).toEqual([undefined]);
    expect(registry.notes).toEqual([]);
  });

  it("a bash guard reading its input with jq", async () => {
    const { registry } = await loadSettings(one("PreToolUse", `bash '${join(FIXTURES, "guard.sh")}'`));
    expect(
      await registry.fire("before_tool", { ...call, args: { command: "curl https://example.com" } }),
    ).toEqual([{ deny: "Blocked: no network from the shell" }]);
    expect(await registry.fire("before_tool", call)).toEqual([undefined]);
    expect(registry.notes).toEqual([]);
  });

  it("a python PostToolUse hook answering with JSON", async () => {
    const { registry } = await loadSettings(
      one("PostToolUse", `python3 '${join(FIXTURES, "post-context.py")}'`),
    );
    expect(await registry.fire("after_tool", { ...after, result: "key=SECRET" })).toEqual([
      { result: "key=SECRET\n\nHOST: hook: the result holds a secret" },
    ]);
    expect(await registry.fire("after_tool", after)).toEqual([
      { result: "file.txt\n\nHOST: hook: checked by post-context" },
    ]);
  });
});
