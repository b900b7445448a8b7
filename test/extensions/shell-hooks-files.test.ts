import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_HOOKS_FILE_BYTES } from "../../src/extensions/hooks-file.js";
import { Registry } from "../../src/extensions/registry.js";
import { loadShellHooks } from "../../src/extensions/shell-hooks.js";
import { makeTree } from "../helpers/skill-tree.js";

/** Every hook a registry holds, over all events. */
function hookCount(registry: Registry): number {
  return Object.values(registry.hooks).reduce((total, hooks) => total + hooks.length, 0);
}

const VALID = JSON.stringify([{ event: "before_tool", command: "true" }]);

describe("loadShellHooks: files that cannot be used", () => {
  const cases: [name: string, content: string | Buffer, note: string][] = [
    ["invalid JSON", "[{", "hooks.json: not loaded (invalid JSON: "],
    ["empty", "", "hooks.json: not loaded (invalid JSON: "],
    ["a string", '"hooks"', "hooks.json: not loaded (expected a list of hooks or a hooks settings object)"],
    ["a number", "42", "hooks.json: not loaded (expected a list of hooks or a hooks settings object)"],
    ["null", "null", "hooks.json: not loaded (expected a list of hooks or a hooks settings object)"],
    [
      "a settings file whose hooks is a list",
      '{"hooks": []}',
      "hooks.json: not loaded (its hooks field is not an object)",
    ],
    [
      "a settings file whose hooks is null",
      '{"hooks": null}',
      "hooks.json: not loaded (its hooks field is not an object)",
    ],
    [
      "over 1 MiB",
      `[${" ".repeat(MAX_HOOKS_FILE_BYTES)}]`,
      `hooks.json: not loaded (it is ${MAX_HOOKS_FILE_BYTES + 2} bytes; the limit is ${MAX_HOOKS_FILE_BYTES})`,
    ],
    ["binary", Buffer.from([0xff, 0xfe, 0x00, 0x01]), "hooks.json: not loaded (invalid JSON: "],
  ];

  for (const [name, content, note] of cases) {
    it(`${name}: noted, nothing registered`, async () => {
      const tree = makeTree("skillgate-hooks-file-");
      const file = join(tree, "hooks.json");
      writeFileSync(file, content);
      const registry = new Registry();
      const got = await loadShellHooks(registry, file, { scope: "config", cwd: tree });
      expect(got?.startsWith(note), got).toBe(true);
      if (!note.endsWith(": ")) expect(got).toBe(note);
      expect(hookCount(registry)).toBe(0);
    });
  }

  it("returns no note for a missing file, or a path through a file", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    writeFileSync(join(tree, "plain"), "x");
    const registry = new Registry();
    expect(await loadShellHooks(registry, join(tree, "hooks.json"), { scope: "config" })).toBeUndefined();
    expect(
      await loadShellHooks(registry, join(tree, "plain", "hooks.json"), { scope: "config" }),
    ).toBeUndefined();
  });

  it("notes a folder and a FIFO without reading them", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    mkdirSync(join(tree, "hooks.json"));
    execFileSync("mkfifo", [join(tree, "fifo.json")]);
    const registry = new Registry();
    expect(await loadShellHooks(registry, join(tree, "hooks.json"), { scope: "config" })).toBe(
      "hooks.json: not loaded (it is a folder)",
    );
    expect(await loadShellHooks(registry, join(tree, "fifo.json"), { scope: "config" })).toBe(
      "fifo.json: not loaded (it is not a regular file)",
    );
  });

  // Root reads any file, so there is nothing to refuse then.
  it.skipIf(process.getuid?.() === 0)("notes a file it may not read", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    writeFileSync(join(tree, "hooks.json"), VALID, { mode: 0o000 });
    expect(await loadShellHooks(new Registry(), join(tree, "hooks.json"), { scope: "config" })).toBe(
      "hooks.json: not loaded (cannot read it: EACCES)",
    );
  });

  it("follows a symbolic link: the file is the owner's, like the rest of the config folder", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    writeFileSync(join(tree, "real.json"), VALID);
    symlinkSync(join(tree, "real.json"), join(tree, "hooks.json"));
    symlinkSync(join(tree, "nowhere.json"), join(tree, "dangling.json"));
    const registry = new Registry();
    expect(await loadShellHooks(registry, join(tree, "hooks.json"), { scope: "config" })).toBe(
      "hooks.json: 1 hook(s)",
    );
    expect(await loadShellHooks(registry, join(tree, "dangling.json"), { scope: "config" })).toBeUndefined();
  });

  it("reads a file with a byte order mark, and an empty list", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    writeFileSync(join(tree, "hooks.json"), `\uFEFF${VALID}`);
    writeFileSync(join(tree, "empty.json"), "[]");
    const registry = new Registry();
    expect(await loadShellHooks(registry, join(tree, "hooks.json"), { scope: "config" })).toBe(
      "hooks.json: 1 hook(s)",
    );
    expect(await loadShellHooks(registry, join(tree, "empty.json"), { scope: "config" })).toBe(
      "empty.json: 0 hook(s)",
    );
  });

  it("drops prototype-polluting keys and never pollutes Object.prototype", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    const file = join(tree, "hooks.json");
    writeFileSync(
      file,
      '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}, "PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}',
    );
    const registry = new Registry();
    expect(await loadShellHooks(registry, file, { scope: "config" })).toBe("hooks.json: 1 hook(s)");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("loads a file of many entries under the cap", async () => {
    const tree = makeTree("skillgate-hooks-file-");
    const file = join(tree, "hooks.json");
    writeFileSync(
      file,
      JSON.stringify(Array.from({ length: 2000 }, () => ({ event: "stop", command: "true" }))),
    );
    const registry = new Registry();
    expect(await loadShellHooks(registry, file, { scope: "config" })).toBe("hooks.json: 2000 hook(s)");
    registry.dropLoaded();
    expect(hookCount(registry)).toBe(0);
  });
});
