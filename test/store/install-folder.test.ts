import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, MAX_FILES } from "../../src/store/limits.js";
import { Store } from "../../src/store/store.js";
import {
  BUILTIN,
  openTestStore,
  readIndexJson,
  refusal,
  skillMd,
  snapshot,
  temporaryFolder,
} from "./store-helpers.js";

/** Writes `files` (relative path → content) into `folder`. */
function fill(folder: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
}

describe("installFolder", () => {
  it("installs a staged folder by one rename, disabled, with binary files and private modes", async () => {
    const { store, data } = await openTestStore();
    const staged = await store.createStagingFolder();
    expect(staged.startsWith(join(data, "skills", ".staging"))).toBe(true);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    fill(staged, { "SKILL.md": skillMd("imported"), "assets/logo.png": png, "scripts/run.sh": "echo hi\n" });
    chmodSync(join(staged, "scripts", "run.sh"), 0o4755);
    const installed = await store.installFolder(staged, { source: "zip", origin: "imported.zip" });
    expect(installed).toMatchObject({ name: "imported", enabled: false, source: "zip", revision: 1 });
    expect(existsSync(staged)).toBe(false);
    const folder = join(data, "skills", "imported");
    expect(statSync(join(folder, "scripts", "run.sh")).mode & 0o7777).toBe(0o600);
    expect(Buffer.from(await store.readFile("imported", "assets/logo.png"))).toEqual(png);
    expect(readIndexJson(data).skills.imported).toMatchObject({ source: "zip", enabled: false });
    expect((await store.list()).find((skill) => skill.name === "imported")?.origin).toBe("imported.zip");
  });

  it("accepts a file of exactly 1 MiB", async () => {
    const { store } = await openTestStore();
    const staged = await store.createStagingFolder();
    fill(staged, { "SKILL.md": skillMd("big-asset"), "assets/blob.bin": Buffer.alloc(MAX_FILE_BYTES, 1) });
    await store.installFolder(staged, {
      source: "github",
      origin: "https://github.com/o/r/tree/main/big-asset",
    });
  });

  type Case = [label: string, code: string, files: Record<string, string | Uint8Array>, name?: string];
  const manyFiles: Record<string, string> = { "SKILL.md": skillMd("many") };
  for (let index = 0; index < MAX_FILES; index += 1) manyFiles[`r/${index}.md`] = "x";
  const manyFolders: Record<string, string> = { "SKILL.md": skillMd("deep") };
  for (let index = 0; index <= MAX_FILES; index += 1) manyFolders[`f${index}/a.md`] = "x";
  const sixMiB: Record<string, Uint8Array | string> = { "SKILL.md": skillMd("heavy") };
  for (let index = 0; index < 6; index += 1)
    sixMiB[`assets/${index}.bin`] = Buffer.alloc(MAX_FILE_BYTES - 10, 2);
  const cases: Case[] = [
    ["201 files", "too_many_files", manyFiles],
    ["201 folders", "too_many_files", manyFolders],
    [
      "a file over 1 MiB",
      "file_too_large",
      { "SKILL.md": skillMd("fat"), "a.bin": Buffer.alloc(MAX_FILE_BYTES + 1) },
    ],
    ["over 5 MiB in all", "skill_too_large", sixMiB],
    ["a hidden file", "path_not_allowed", { "SKILL.md": skillMd("hidden"), ".env": "SECRET=1" }],
    ["no SKILL.md", "skill_invalid", { "README.md": "no skill here" }],
    ["SKILL.md that does not load", "skill_invalid", { "SKILL.md": "---\nname: broken\n" }],
    [
      "invalid parameters_schema",
      "skill_invalid",
      { "SKILL.md": skillMd("schema", "metadata:\n  parameters_schema: not json") },
    ],
    ["name given differs from SKILL.md", "skill_invalid", { "SKILL.md": skillMd("actual") }, "expected"],
    ["a built-in's name", "builtin_read_only", { "SKILL.md": skillMd(BUILTIN) }],
    ["an existing name", "skill_exists", { "SKILL.md": skillMd("taken") }],
  ];

  it.each(cases)(
    "refuses %s with %s, removes the staged folder and changes nothing else",
    async (_label, code, files, name) => {
      const { store, data } = await openTestStore();
      await store.create("taken", { "SKILL.md": skillMd("taken") });
      const before = snapshot(data);
      const staged = await store.createStagingFolder();
      fill(staged, files);
      await refusal(
        () => store.installFolder(staged, { source: "zip", ...(name !== undefined ? { name } : {}) }),
        code,
      );
      expect(existsSync(staged)).toBe(false);
      expect(snapshot(data)).toEqual(before);
    },
  );

  it("refuses a symbolic link inside the staged folder", async () => {
    const { store, data } = await openTestStore();
    const before = snapshot(data);
    const staged = await store.createStagingFolder();
    fill(staged, { "SKILL.md": skillMd("linked") });
    symlinkSync("/etc/passwd", join(staged, "passwd"));
    await refusal(() => store.installFolder(staged, { source: "zip" }), "symlink_not_allowed");
    expect(snapshot(data)).toEqual(before);
  });

  it("refuses a folder that is not one of its staging folders", async () => {
    const { store, data } = await openTestStore();
    const elsewhere = temporaryFolder();
    fill(elsewhere, { "SKILL.md": skillMd("outside") });
    await refusal(() => store.installFolder(elsewhere, { source: "zip" }), "invalid_argument");
    await refusal(
      () => store.installFolder(join(data, "skills", ".staging", "..", "x"), { source: "zip" }),
      "invalid_argument",
    );
    expect(existsSync(join(elsewhere, "SKILL.md"))).toBe(true);
  });

  it("a staging folder in use survives another open in the same process; discard removes it", async () => {
    const { store, data, builtins } = await openTestStore();
    const staged = await store.createStagingFolder();
    fill(staged, { "SKILL.md": skillMd("pending") });
    const other = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    expect(other.report.findings).toEqual([]);
    expect(existsSync(staged)).toBe(true);
    await store.discardStagingFolder(staged);
    expect(readdirSync(join(data, "skills", ".staging"))).toEqual([]);
  });
});
