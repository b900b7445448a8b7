import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isStoreError, type ScriptCheckFailedError } from "../../src/store/errors.js";
import { openTestStore, refusal, skillMd, snapshot, temporaryFolder } from "./store-helpers.js";

/**
 * The script check before save, wired into every write that publishes a new version:
 * create, updateFiles, installFolder and duplicate. A script that does not parse refuses the
 * write with `script_check_failed` (422), its file and line in the data, and the store is
 * byte-for-byte unchanged; a script that cannot be checked is a warning in the result.
 */

const BROKEN_PY = "import sys\n\ndef main(:\n    pass\n";
const BROKEN_SH = '#!/bin/bash\nif [ -n "$1" ]; then\n  echo "$1"\n';

function problemsOf(error: Error): { file: string; line?: number; message: string }[] {
  return (error as ScriptCheckFailedError).data.problems;
}

describe("script check before save", () => {
  it("create refuses a broken .py with its file and line and leaves the store unchanged", async () => {
    const { store, data } = await openTestStore();
    const before = snapshot(data);
    const error = await refusal(
      () => store.create("broken", { "SKILL.md": skillMd("broken"), "scripts/bad.py": BROKEN_PY }),
      "script_check_failed",
    );
    expect(isStoreError(error) && error.httpStatus).toBe(422);
    expect(problemsOf(error)).toEqual([expect.objectContaining({ file: "scripts/bad.py", line: 3 })]);
    expect(error.message).toContain("scripts/bad.py line 3");
    expect(snapshot(data)).toEqual(before);
    expect(await store.list()).toHaveLength(1);
  });

  it("create accepts good scripts in every checked language", async () => {
    const { store } = await openTestStore();
    const created = await store.create("good", {
      "SKILL.md": skillMd("good"),
      "scripts/a.py": "print('a')\n",
      "scripts/b.mjs": "export const b = 1;\n",
      "scripts/c.sh": "echo c\n",
      "scripts/d.ts": "export const d: number = 1;\n",
    });
    expect(created.scriptWarnings).toEqual([]);
  });

  it("updateFiles refuses a broken script it writes, and nothing changes", async () => {
    const { store, data } = await openTestStore();
    const created = await store.create("tool", {
      "SKILL.md": skillMd("tool"),
      "scripts/run.sh": "echo ok\n",
    });
    const before = snapshot(data);
    const error = await refusal(
      () => store.updateFile("tool", "scripts/run.sh", BROKEN_SH, { expectedHash: created.hash }),
      "script_check_failed",
    );
    expect(problemsOf(error)).toEqual([expect.objectContaining({ file: "scripts/run.sh", line: 4 })]);
    expect(snapshot(data)).toEqual(before);
    expect((await store.get("tool")).hash).toBe(created.hash);
  });

  it("installFolder refuses a broken script, removes the staged folder and changes nothing else", async () => {
    const { store, data } = await openTestStore();
    const before = snapshot(data);
    const staged = await store.createStagingFolder();
    mkdirSync(join(staged, "scripts"));
    writeFileSync(join(staged, "SKILL.md"), skillMd("imported"));
    writeFileSync(join(staged, "scripts", "bad.py"), BROKEN_PY);
    const error = await refusal(() => store.installFolder(staged, { source: "zip" }), "script_check_failed");
    expect(problemsOf(error)[0]).toMatchObject({ file: "scripts/bad.py", line: 3 });
    expect(snapshot(data)).toEqual(before);
  });

  it("duplicate refuses to copy a stored skill whose script does not parse", async () => {
    const data = temporaryFolder();
    const unchecked = await openTestStore({ dataFolder: data, checkScripts: false });
    await unchecked.store.create("old", { "SKILL.md": skillMd("old"), "scripts/bad.py": BROKEN_PY });
    const { store } = await openTestStore({ dataFolder: data, builtinFolder: unchecked.builtins });
    const before = snapshot(data);
    const error = await refusal(() => store.duplicate("old", "copy"), "script_check_failed");
    expect(problemsOf(error)[0]).toMatchObject({ file: "scripts/bad.py", line: 3 });
    expect(snapshot(data)).toEqual(before);
  });

  it("an update checks the scripts it writes; files it keeps were checked when they were written", async () => {
    const data = temporaryFolder();
    const unchecked = await openTestStore({ dataFolder: data, checkScripts: false });
    await unchecked.store.create("kept", { "SKILL.md": skillMd("kept"), "scripts/bad.py": BROKEN_PY });
    const { store } = await openTestStore({ dataFolder: data, builtinFolder: unchecked.builtins });
    const result = await store.updateFile("kept", "references/notes.md", "# Notes\n");
    expect(result.scriptWarnings).toEqual([]);
    await refusal(() => store.updateFile("kept", "scripts/bad.py", `${BROKEN_PY}\n`), "script_check_failed");
  });

  it("returns a script it could not check as a warning: .cs without dotnet", async () => {
    const emptyPath = temporaryFolder();
    const { store } = await openTestStore({ scriptCheck: { searchPath: emptyPath } });
    const created = await store.create("csharp", {
      "SKILL.md": skillMd("csharp"),
      "scripts/Tool.cs": 'System.Console.WriteLine("hi");\n',
    });
    expect(created.scriptWarnings).toEqual([
      expect.objectContaining({ file: "scripts/Tool.cs", code: "not_checked", language: "csharp" }),
    ]);
    expect(created.scriptWarnings[0]?.message).toContain("dotnet is not installed");
  });

  it("checkScripts: false skips the check (for tests that need speed)", async () => {
    const { store } = await openTestStore({ checkScripts: false });
    const created = await store.create("fast", { "SKILL.md": skillMd("fast"), "scripts/bad.py": BROKEN_PY });
    expect(created.scriptWarnings).toEqual([]);
  });
});
