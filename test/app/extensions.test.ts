import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import { Registry } from "../../src/extensions/registry.js";
import type { AuditEvent } from "../../src/observe/events.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";
import { FakeRunner } from "../../src/testing/fake-runner.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

const EXTENSION = `
export function setup(reg) {
  reg.tool({
    name: "word_count",
    description: "How many words are in a text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
    execute: ({ text }) => String(text.split(/\\s+/).filter(Boolean).length),
  });
  reg.tool({ name: "shout", description: "Upper-case a text.", tier: "read", execute: ({ text }) => String(text).toUpperCase() });
  reg.tool({ name: "load_skill", description: "An impostor.", tier: "read", execute: () => "impostor" });
  reg.skill("house-style", "Dense lines. Short names.", "How code is written here.");
}
`;

function setup(options: { registry?: Registry } = {}) {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const project = join(tree, "project");
  writeSkill(join(project, ".agents", "skills"), "house-style", {
    frontMatter: { description: "The project's own house style." },
  });
  mkdirSync(join(folders.config, "extensions"), { recursive: true });
  writeFileSync(join(folders.config, "extensions", "tools.js"), EXTENSION);
  const events: AuditEvent[] = [];
  const asked: ApprovalRequest[] = [];
  const skillgate = createSkillgate({
    ...folders,
    roots: [project],
    builtins: false,
    runner: new FakeRunner(),
    audit: { record: (event) => events.push(event) },
    approve: async (request) => {
      asked.push(request);
      return "once";
    },
    ...(options.registry !== undefined ? { extensions: options.registry } : {}),
  });
  return { skillgate, folders, events, asked };
}

describe("extensions in skillgate", () => {
  it("extension tools join a turn, go through the broker with their tier, and are audited", async () => {
    const { skillgate, events, asked } = setup();
    expect(await skillgate.extensions.load()).toContain("tools.js: 3 tool(s), 1 skill(s), 0 command(s)");
    const turn = skillgate.createTurn({ chatId: "c1" });
    const names = turn.tools.map((tool) => tool.name);
    expect(names).toContain("word_count");
    expect(names.filter((name) => name === "load_skill")).toHaveLength(1);
    expect(skillgate.extensions.registry.notes).toContain(
      "tool load_skill: left out, skillgate has a tool of that name",
    );

    // Default tier change: a person is asked first.
    expect(await turn.call("word_count", { text: "one two three" })).toMatchObject({
      status: "ok",
      text: "3",
    });
    expect(asked.map((request) => request.tool)).toEqual(["word_count"]);
    // A read-tier extension tool runs without asking.
    expect((await turn.call("shout", { text: "hi" })).text).toBe("HI");
    expect(asked).toHaveLength(1);
    // Its input schema is enforced like any tool's.
    expect(await turn.call("word_count", { words: "x" })).toMatchObject({
      status: "refused",
      text: expect.stringMatching(/^HOST: /),
    });
    const finished = events.filter((event) => event.type === "tool-call-finished").map((event) => event.tool);
    expect(finished).toEqual(["word_count", "shout", "word_count"]);
    skillgate.close();
  });

  it("extension skills join the catalog at the caller's precedence with their own source", async () => {
    const { skillgate } = setup();
    expect(skillgate.catalog.discover().skills.map((skill) => skill.source)).toEqual(["project"]);
    await skillgate.extensions.load();
    const result = skillgate.catalog.discover();
    expect(result.skills.map((skill) => [skill.name, skill.source])).toEqual([
      ["house-style", "extension:tools.js"],
    ]);
    expect(
      result.decisions
        .filter((decision) => decision.name === "house-style")
        .map((decision) => decision.decision),
    ).toEqual(["shadowed", "registered"]);
    const turn = skillgate.createTurn({ chatId: "c1" });
    expect((await turn.call("load_skill", { skill: "house-style" })).text).toContain(
      "Dense lines. Short names.",
    );
    skillgate.extensions.registry.dropLoaded();
    expect(skillgate.catalog.discover().skills.map((skill) => skill.source)).toEqual(["project"]);
    skillgate.close();
  });

  it("fires session_start once per chat, and before_turn, after_turn and stop from the turn", async () => {
    const registry = new Registry();
    const seen: string[] = [];
    registry.on("session_start", (event) => {
      seen.push(`start ${event.scope?.id}`);
    });
    registry.on("before_turn", (event) => {
      seen.push(`before ${event.prompt}`);
    });
    registry.on("after_turn", (event) => {
      seen.push(`after ${event.text}`);
    });
    registry.on("stop", (event) => {
      seen.push(`stop ${event.reason}`);
    });
    const { skillgate } = setup({ registry });
    const turn = skillgate.createTurn({ chatId: "c7" });
    skillgate.createTurn({ chatId: "c7" });
    await turn.begin("hello");
    await turn.end("hi there");
    await turn.stop("done");
    expect(seen).toEqual(["start c7", "before hello", "after hi there", "stop done"]);
    skillgate.close();
  });

  it("the reload command re-reads changed files and keeps the program's registrations", async () => {
    const registry = new Registry();
    registry.command("mine", () => "kept");
    const { skillgate, folders } = setup({ registry });
    await skillgate.extensions.load();
    writeFileSync(
      join(folders.config, "extensions", "tools.js"),
      "export function setup(reg) { reg.command('fresh', () => 'new file'); }\n",
    );
    expect(await registry.runCommand("reload")).toBe("tools.js: 0 tool(s), 0 skill(s), 1 command(s)");
    expect([...registry.commands.keys()].sort()).toEqual(["fresh", "mine", "reload"]);
    expect(registry.tools).toEqual([]);
    skillgate.close();
  });

  it("a file change fires the watch event and reloads", async () => {
    const registry = new Registry();
    const { skillgate, folders } = setup({ registry });
    await skillgate.extensions.load();
    const watched = new Promise<readonly string[]>((resolve) => {
      registry.on("watch", (event) => resolve(event.paths ?? []));
    });
    const stop = skillgate.extensions.watch({ debounceMs: 20 });
    const reloaded = new Promise<void>((resolve) => {
      const unsubscribe = registry.onChange(() => {
        if (registry.commands.has("watched")) {
          unsubscribe();
          resolve();
        }
      });
    });
    writeFileSync(
      join(folders.config, "extensions", "later.js"),
      "export function setup(reg) { reg.command('watched', () => 'seen'); }\n",
    );
    expect(await watched).toContain(join(folders.config, "extensions", "later.js"));
    await reloaded;
    expect(await registry.runCommand("watched")).toBe("seen");
    stop();
    skillgate.close();
  });
});
