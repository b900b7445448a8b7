import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./harness.js";

const WORD_COUNT = `
export function setup(reg) {
  reg.tool({ name: "word_count", description: "Count words.", tier: "read", execute: () => "3" });
  reg.command("wc", (arg) => "counted " + arg, { help: "count words" });
  reg.skill("house-style", "Dense lines. Short names.", "How code is written here.");
}
`;

function withExtensions() {
  const sandbox = cliSandbox();
  mkdirSync(join(sandbox.config, "extensions"), { recursive: true });
  writeFileSync(join(sandbox.config, "extensions", "wc.js"), WORD_COUNT);
  writeFileSync(join(sandbox.config, "extensions", "boom.js"), 'throw new Error("no");\n');
  writeFileSync(
    join(sandbox.config, "hooks.json"),
    JSON.stringify([{ event: "before_tool", match: "run_*", command: "echo checked" }]),
  );
  return sandbox;
}

describe("skillgate extensions", () => {
  it("lists each file's note, the tools, skills, commands and the approval policy", async () => {
    const sandbox = withExtensions();
    const result = await sandbox.run(["extensions"]);
    // boom.js failed: listed, and a problem (exit 1).
    expect(result.code).toBe(1);
    expect(result.out).toContain("problems: 1 file(s) not loaded");
    expect(result.out).toContain("extension_failed: boom.js: failed to load (Error: no)");
    expect(result.out).toContain(`looked in: ${join(sandbox.config, "extensions")}`);
    expect(result.out).toContain("boom.js: failed to load (Error: no)");
    expect(result.out).toContain("wc.js: 1 tool(s), 1 skill(s), 1 command(s)");
    expect(result.out).toContain("hooks.json: 1 hook(s)");
    expect(result.out).toContain("word_count [read]");
    expect(result.out).toContain("house-style (extension:wc.js) How code is written here.");
    expect(result.out).toContain("commands: /reload /wc");
    expect(result.out).toContain("approval policy: none");
    const json = JSON.parse((await sandbox.run(["extensions", "--json"])).out);
    expect(json.tools).toEqual([
      {
        name: "word_count",
        tier: "read",
        description: "Count words.",
        origin: join(sandbox.config, "extensions", "wc.js"),
      },
    ]);
  });
});

describe("skillgate hooks list", () => {
  it("shows each hook's event, match, command and file, and project hooks left out without the opt-in", async () => {
    const sandbox = withExtensions();
    mkdirSync(join(sandbox.project, ".skillgate"), { recursive: true });
    const marker = join(sandbox.tree, "project-hook-ran");
    writeFileSync(
      join(sandbox.project, ".skillgate", "hooks.json"),
      JSON.stringify([{ event: "before_turn", command: `touch ${marker}` }]),
    );
    const result = await sandbox.run(["hooks", "list"]);
    // The fixture's boom.js failed to load: a problem here too.
    expect(result.code).toBe(1);
    expect(result.out).toContain("before_tool match run_*  $ echo checked");
    expect(result.out).toContain(`from ${join(sandbox.config, "hooks.json")} (config)`);
    expect(result.out).toContain(`not loaded: ${join(sandbox.project, ".skillgate", "hooks.json")}`);
    expect(existsSync(marker)).toBe(false);

    const opted = JSON.parse((await sandbox.run(["--project-extensions", "hooks", "list", "--json"])).out);
    expect(opted.notLoaded).toEqual([]);
    expect(opted.hooks.map((hook: { event: string; scope: string }) => [hook.event, hook.scope])).toEqual([
      ["before_tool", "config"],
      ["before_turn", "project"],
    ]);
  });
});

describe("skillgate commands", () => {
  it("lists the commands and runs one with its text", async () => {
    const sandbox = withExtensions();
    const listed = await sandbox.run(["commands"]);
    expect(listed.out).toMatch(/\/wc\s+count words/);
    expect(listed.out).toMatch(/\/reload\s+read the extension files and hooks files again/);
    const ran = await sandbox.run(["command", "wc", "two", "words"]);
    expect(ran).toMatchObject({ code: 0, out: "counted two words\n" });
    const unknown = await sandbox.run(["command", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("no command named");
    expect(unknown.err).toContain("unknown_command");
  });
});

describe("a broken extension or hooks file is a problem: exit 1 from extensions, hooks list and doctor", () => {
  const cases: ReadonlyArray<{ what: string; file: string; text: string; code: string }> = [
    {
      what: "an extension that throws",
      file: "extensions/boom.js",
      text: 'throw new Error("no");\n',
      code: "extension_failed",
    },
    {
      what: "an extension with a syntax error",
      file: "extensions/bad.js",
      text: "export function setup( {\n",
      code: "extension_failed",
    },
    {
      what: "a hooks.json that is not JSON",
      file: "hooks.json",
      text: "{ not json",
      code: "hooks_file_unusable",
    },
    {
      what: "a hooks.json that is neither a list nor an object",
      file: "hooks.json",
      text: "42",
      code: "hooks_file_unusable",
    },
  ];
  for (const { what, file, text, code } of cases) {
    it(what, async () => {
      const sandbox = cliSandbox();
      mkdirSync(join(sandbox.config, "extensions"), { recursive: true });
      writeFileSync(join(sandbox.config, file), text);
      for (const argv of [["extensions"], ["hooks", "list"]]) {
        const result = await sandbox.run(argv);
        expect(result.code, argv.join(" ")).toBe(1);
        expect(result.out, argv.join(" ")).toContain(`${code}: `);
        const json = JSON.parse((await sandbox.run([...argv, "--json"])).out);
        expect(json.problems).toEqual([expect.objectContaining({ code, file: join(sandbox.config, file) })]);
      }
      const doctor = JSON.parse((await sandbox.run(["doctor", "--json"])).out);
      expect(doctor.ok).toBe(false);
      expect(doctor.problems).toContainEqual(
        expect.objectContaining({ code, severity: "error", location: join(sandbox.config, file) }),
      );
    });
  }

  it("working extensions and hooks exit 0", async () => {
    const sandbox = cliSandbox();
    mkdirSync(join(sandbox.config, "extensions"), { recursive: true });
    writeFileSync(join(sandbox.config, "extensions", "wc.js"), WORD_COUNT);
    writeFileSync(
      join(sandbox.config, "hooks.json"),
      JSON.stringify([{ event: "before_tool", command: "true" }]),
    );
    expect((await sandbox.run(["extensions"])).code).toBe(0);
    expect((await sandbox.run(["hooks", "list"])).code).toBe(0);
  });
});
