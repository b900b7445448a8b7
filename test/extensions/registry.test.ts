import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EVENTS } from "../../src/extensions/events.js";
import { extensionFolders, loadExtensions } from "../../src/extensions/load.js";
import { Registry } from "../../src/extensions/registry.js";
import type { ExtensionTool } from "../../src/extensions/types.js";
import { makeTree } from "../helpers/skill-tree.js";

// Extensions as docs/extensions.md describes them ("Writing an extension", "Events"), as files in
// a config folder.

const WORD_COUNT = `
import { readFileSync } from "node:fs";
export function setup(reg) {
  reg.tool({
    name: "word_count",
    description: "How many words are in a file.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    execute: ({ path }) => String(readFileSync(path, "utf8").split(/\\s+/).filter(Boolean).length),
  });
  reg.command("wc", (arg) => "counted " + arg, { help: "count words" });
  reg.skill("house-style", "Dense lines. Short names.", "How code is written here.");
}
`;

const DENY_RM_HOOK = [
  {
    event: "before_tool",
    match: "run_*",
    command: `python3 -c 'import sys, json; d = json.load(sys.stdin); print(json.dumps({"deny": "no rm"}) if "rm" in d["args"]["command"] else "logged")'`,
  },
  { event: "nonsense", command: "true" },
];

/** A config folder holding three extension files: one that registers, a helper, and one that throws. */
function seedConfig(): { config: string; extensions: string } {
  const config = makeTree();
  const extensions = join(config, "extensions");
  mkdirSync(extensions);
  writeFileSync(join(extensions, "wc.js"), WORD_COUNT);
  writeFileSync(join(extensions, "helpers.js"), "globalThis.SHARED = 1\n");
  writeFileSync(join(extensions, "boom.js"), 'throw new Error("no");\n');
  return { config, extensions };
}

const context = { requestId: "test" };

function liveTool(): ExtensionTool {
  return { name: "live_tool", description: "echo", execute: (input) => String(input.x) };
}

describe("EVENTS", () => {
  it("is exactly the list docs/extensions.md gives, without duplicates", () => {
    expect(EVENTS).toEqual([
      "session_start",
      "before_turn",
      "after_turn",
      "before_tool",
      "after_tool",
      "stop",
      "compact",
      "approval",
      "background_done",
      "watch",
    ]);
    expect(new Set(EVENTS).size).toBe(EVENTS.length);
  });
});

describe("loadExtensions", () => {
  it("runs each file's setup and notes what it added or why it failed", async () => {
    const { config, extensions } = seedConfig();
    const reg = await loadExtensions(new Registry(), { config });
    expect(reg.notes).toEqual([
      "boom.js: failed to load (Error: no)",
      "helpers.js: loaded, no setup()",
      "wc.js: 1 tool(s), 1 skill(s), 1 command(s)",
    ]);
    expect(reg.tools.map((tool) => tool.name)).toEqual(["word_count"]);
    expect([...reg.commands.keys()]).toEqual(["wc"]);
    expect(reg.skills.map((skill) => skill.name)).toEqual(["house-style"]);
    expect(reg.skills[0]?.text()).toBe("Dense lines. Short names.");
    expect(reg.skills[0]?.description).toBe("How code is written here.");
    expect(reg.skills[0]?.source).toBe("extension:wc.js");
    // The tool really runs: helpers.js holds three words.
    expect(await reg.tools[0]?.execute({ path: join(extensions, "helpers.js") }, context)).toBe("3");
    expect(await reg.runCommand("wc", "x")).toBe("counted x");
    expect(reg.loaded).toBe(true);
  });

  it("leaves out files starting with _ and other kinds, and loads the given paths", async () => {
    const { config, extensions } = seedConfig();
    writeFileSync(
      join(extensions, "_shared.js"),
      "export function setup(reg) { reg.command('hidden', () => 1); }\n",
    );
    writeFileSync(join(extensions, "notes.txt"), "not code\n");
    const more = join(makeTree(), "more.mjs");
    writeFileSync(more, "export default function (reg) { reg.command('more', () => 'yes'); }\n");
    const reg = await loadExtensions(new Registry(), { config, paths: [more] });
    expect([...reg.commands.keys()]).toEqual(["wc", "more"]);
    expect(reg.notes.at(-1)).toBe("more.mjs: 0 tool(s), 0 skill(s), 1 command(s)");
  });

  it("loads a TypeScript extension with its types stripped", async () => {
    const config = makeTree();
    mkdirSync(join(config, "extensions"));
    writeFileSync(
      join(config, "extensions", "typed.ts"),
      [
        "interface Registrar { command(name: string, run: (arg: string) => string): unknown }",
        "export function setup(reg: Registrar): void {",
        "  const shout = (arg: string): string => arg.toUpperCase();",
        "  reg.command('shout', shout);",
        "}",
      ].join("\n"),
    );
    const reg = await loadExtensions(new Registry(), { config });
    expect(reg.notes).toEqual(["typed.ts: 0 tool(s), 0 skill(s), 1 command(s)"]);
    expect(await reg.runCommand("shout", "hi")).toBe("HI");
  });

  it("a setup that fails part way registers nothing", async () => {
    const config = makeTree();
    mkdirSync(join(config, "extensions"));
    writeFileSync(
      join(config, "extensions", "half.js"),
      "export function setup(reg) { reg.command('first', () => 1); throw new TypeError('second failed'); }\n",
    );
    const reg = await loadExtensions(new Registry(), { config });
    expect(reg.notes).toEqual(["half.js: failed to load (TypeError: second failed)"]);
    expect([...reg.commands.keys()]).toEqual([]);
  });

  it.each([
    [
      "a tool without a name",
      "reg.tool({ description: 'x', execute: () => 1 })",
      "tool undefined: a tool name is",
    ],
    [
      "a tool name with spaces",
      "reg.tool({ name: 'two words', description: 'x', execute: () => 1 })",
      "a tool name is",
    ],
    [
      "a tool without execute",
      "reg.tool({ name: 'no_run', description: 'x' })",
      "it has no execute function",
    ],
    [
      "a tool schema that is not an object schema",
      "reg.tool({ name: 'bad_schema', description: 'x', inputSchema: { type: 'string' }, execute: () => 1 })",
      'its inputSchema must be a JSON Schema with "type": "object"',
    ],
    [
      "two tools of one name",
      "const t = { name: 'twice', description: 'x', execute: () => 1 }; reg.tool(t); reg.tool(t)",
      "a tool of that name is already registered",
    ],
    ["a command name with a slash", "reg.command('/wc', () => 1)", "a command name is"],
    ["an unknown event", "reg.on('before_lunch', () => 1)", "unknown event"],
  ])("refuses %s with a note naming the problem", async (_label, body, problem) => {
    const config = makeTree();
    mkdirSync(join(config, "extensions"));
    writeFileSync(join(config, "extensions", "bad.js"), `export function setup(reg) { ${body}; }\n`);
    const reg = await loadExtensions(new Registry(), { config });
    expect(reg.notes).toHaveLength(1);
    expect(reg.notes[0]).toMatch(/^bad\.js: failed to load \(/);
    expect(reg.notes[0]).toContain(problem);
    expect(reg.tools).toEqual([]);
    expect([...reg.commands.keys()]).toEqual([]);
  });

  it("gives the extension a registrar and nothing else", async () => {
    const config = makeTree();
    mkdirSync(join(config, "extensions"));
    writeFileSync(
      join(config, "extensions", "peek.js"),
      "export function setup(reg) { reg.command('peek', () => Object.keys(reg).sort().join(',') + '|' + Object.isFrozen(reg) + '|' + String(reg.notes)); }\n",
    );
    const reg = await loadExtensions(new Registry(), { config });
    expect(await reg.runCommand("peek")).toBe("approval,command,on,skill,tool|true|undefined");
  });
});

describe("shell hooks through load", () => {
  it("registers hooks.json: deny rm, log the rest, skip a tool that does not match", async () => {
    const { config } = seedConfig();
    writeFileSync(join(config, "hooks.json"), JSON.stringify(DENY_RM_HOOK));
    const reg = await loadExtensions(new Registry(), { config });
    expect(await reg.fire("before_tool", { tool: "run_shell", args: { command: "rm -rf x" } })).toEqual([
      { deny: "no rm" },
    ]);
    expect(await reg.fire("before_tool", { tool: "run_shell", args: { command: "ls" } })).toEqual([
      undefined,
    ]);
    expect(await reg.fire("before_tool", { tool: "view_file", args: {} })).toEqual([undefined]);
    expect(reg.notes.some((note) => note.endsWith("1 hook(s)") || note.includes("skipped"))).toBe(true);
    expect(reg.dropLoaded().hooks.before_tool).toEqual([]);
  });
});

describe("reload", () => {
  it("drops exactly what the files registered, keeps the program's, and loses nothing over rounds", async () => {
    const { config } = seedConfig();
    const live = await loadExtensions(new Registry(), { config });
    live.tool(liveTool());
    live.command("mine", (arg) => arg);
    live.on("after_tool", () => undefined);
    live.dropLoaded();
    expect(live.tools.map((tool) => tool.name)).toEqual(["live_tool"]);
    expect([...live.commands.keys()]).toEqual(["mine"]);
    expect(live.hooks.after_tool).toHaveLength(1);
    expect(live.skills.map((skill) => skill.name)).toEqual([]);
    expect(live.loaded).toBe(false);
    await loadExtensions(live, { config });
    expect(live.tools.map((tool) => tool.name)).toEqual(["live_tool", "word_count"]);
    live.dropLoaded();
    expect(live.tools.map((tool) => tool.name)).toEqual(["live_tool"]);
    for (let round = 0; round < 5; round += 1) {
      await loadExtensions(live, { config });
      live.dropLoaded();
    }
    expect(live.tools.map((tool) => tool.name)).toEqual(["live_tool"]);
    expect([...live.commands.keys()]).toEqual(["mine"]);
    expect(live.hooks.after_tool).toHaveLength(1);
    expect(new Registry().dropLoaded().tools).toEqual([]);
  });

  it("a changed file is read afresh on the next load", async () => {
    const config = makeTree();
    mkdirSync(join(config, "extensions"));
    const file = join(config, "extensions", "ver.js");
    writeFileSync(file, "export function setup(reg) { reg.command('version', () => 'one'); }\n");
    const reg = await loadExtensions(new Registry(), { config });
    expect(await reg.runCommand("version")).toBe("one");
    writeFileSync(file, "export function setup(reg) { reg.command('version', () => 'two, longer'); }\n");
    reg.dropLoaded();
    await loadExtensions(reg, { config });
    expect(await reg.runCommand("version")).toBe("two, longer");
  });

  it("the program's registrations made while a setup awaits stay the program's", async () => {
    const config = makeTree();
    mkdirSync(join(config, "extensions"));
    writeFileSync(
      join(config, "extensions", "slow.js"),
      "export async function setup(reg) { await new Promise((r) => setTimeout(r, 20)); reg.command('slow', () => 1); }\n",
    );
    const reg = new Registry();
    const loading = loadExtensions(reg, { config });
    reg.command("meanwhile", () => 2);
    await loading;
    reg.dropLoaded();
    expect([...reg.commands.keys()]).toEqual(["meanwhile"]);
  });
});

describe("hooks", () => {
  it("hooking an unknown event throws an error containing 'unknown event'", () => {
    expect(() => new Registry().on("before_lunch" as never, () => undefined)).toThrow(/unknown event/);
  });

  it("a failing hook is noted and left out of the results; the others run", async () => {
    const reg = new Registry();
    const fired: unknown[] = [];
    reg.on("before_turn", () => {
      throw new RangeError("division by zero");
    });
    reg.on("before_turn", (payload) => {
      fired.push(payload);
    });
    expect(await reg.fire("before_turn", { prompt: "hello" })).toEqual([undefined]);
    expect(fired).toEqual([{ prompt: "hello" }]);
    expect(reg.notes.at(-1)).toBe("before_turn hook failed: RangeError: division by zero");
    expect(await reg.fire("before_turn", { prompt: "again" })).toEqual([undefined]);
    expect(reg.notes.at(-1)).toMatch(/^before_turn hook failed/);
  });

  it("runs hooks in registration order, async ones awaited, rejections noted", async () => {
    const reg = new Registry();
    reg.on("after_turn", async () => "first");
    reg.on("after_turn", async () => Promise.reject(new Error("late")));
    reg.on("after_turn", () => "third");
    expect(await reg.fire("after_turn", {})).toEqual(["first", "third"]);
    expect(reg.notes).toEqual(["after_turn hook failed: Error: late"]);
  });

  it("keeps a bounded number of notes", async () => {
    const reg = new Registry();
    reg.on("compact", () => {
      throw new Error("again");
    });
    for (let index = 0; index < 600; index += 1) await reg.fire("compact", {});
    expect(reg.notes).toHaveLength(500);
  });
});

describe("the approval policy", () => {
  it("the last one registered wins; none registered leaves the rules' decision", () => {
    const reg = new Registry();
    reg.approval(() => false);
    reg.approval(function approveReads(call) {
      return !call.tool.startsWith("write_");
    });
    expect(reg.approve?.name).toBe("approveReads");
    expect(reg.approve?.({ tool: "view_file" })).toBe(true);
    expect(reg.approve?.({ tool: "write_file" })).toBe(false);
    expect(new Registry().approve).toBeUndefined();
  });
});

describe("extension folders", () => {
  it("project folders load only with the opt-in", () => {
    expect(extensionFolders({ roots: ["/proj"], config: "/cfg" })).toEqual(["/cfg/extensions"]);
    expect(extensionFolders({ roots: ["/proj"], config: "/cfg", project: true }).at(-1)).toBe(
      "/proj/.skillgate/extensions",
    );
  });

  it("cloning a repository never runs its code: project extensions and hooks need project: true", async () => {
    const root = makeTree();
    const marker = join(root, "ran");
    mkdirSync(join(root, ".skillgate", "extensions"), { recursive: true });
    writeFileSync(
      join(root, ".skillgate", "extensions", "sneaky.js"),
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x"); export function setup() {}\n`,
    );
    writeFileSync(
      join(root, ".skillgate", "hooks.json"),
      JSON.stringify([{ event: "before_turn", command: `touch ${JSON.stringify(`${marker}-hook`)}` }]),
    );
    const config = makeTree();
    const closed = await loadExtensions(new Registry(), { config, roots: [root] });
    await closed.fire("before_turn", { prompt: "hi" });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(`${marker}-hook`)).toBe(false);
    expect(closed.notes).toEqual([]);

    const opened = await loadExtensions(new Registry(), { config, roots: [root], project: true });
    expect(existsSync(marker)).toBe(true);
    await opened.fire("before_turn", { prompt: "hi" });
    expect(existsSync(`${marker}-hook`)).toBe(true);
    expect(opened.hooks.before_turn[0]?.info).toMatchObject({ scope: "project" });
  });
});
