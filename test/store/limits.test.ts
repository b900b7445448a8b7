import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isStoreError, STORE_HTTP_STATUS } from "../../src/store/errors.js";
import {
  MAX_DOMAINS,
  MAX_DRAFT_FILES,
  MAX_EDITABLE_BYTES,
  MAX_FILE_BYTES,
  MAX_FILES,
  MAX_SKILL_BYTES,
  MAX_SKILLS,
  MAX_ZIP_BYTES,
} from "../../src/store/limits.js";
import type { Store } from "../../src/store/store.js";
import { BUILTIN, openTestStore, refusal, skillMd, snapshot } from "./store-helpers.js";

describe("limits (docs/store.md, exactly)", () => {
  it("are the documented numbers", () => {
    expect([
      MAX_SKILLS,
      MAX_FILES,
      MAX_FILE_BYTES,
      MAX_SKILL_BYTES,
      MAX_EDITABLE_BYTES,
      MAX_ZIP_BYTES,
    ]).toEqual([200, 200, 1024 * 1024, 5 * 1024 * 1024, 256 * 1024, 5 * 1024 * 1024]);
    expect([MAX_DOMAINS, MAX_DRAFT_FILES]).toEqual([50, 40]);
  });

  it("map each refusal code to its HTTP status", () => {
    expect(STORE_HTTP_STATUS).toMatchObject({
      zip_too_large: 413,
      file_too_large: 413,
      skill_too_large: 413,
      too_many_files: 413,
      too_many_skills: 413,
      too_many_domains: 413,
      skill_changed: 409,
      skill_exists: 409,
      not_found: 404,
      builtin_read_only: 403,
      invalid_skill_name: 400,
      path_not_allowed: 400,
      skill_invalid: 400,
      invalid_argument: 400,
    });
  });
});

/** `count` text files of `bytes` bytes each, plus SKILL.md. */
function textFiles(name: string, count: number, bytes: number): Record<string, string> {
  const files: Record<string, string> = { "SKILL.md": skillMd(name) };
  for (let index = 0; index < count; index += 1) files[`references/part-${index}.md`] = "x".repeat(bytes);
  return files;
}

function domains(count: number): string {
  const hosts = Array.from({ length: count }, (_, index) => `  - host${index}.example.com`);
  return `metadata:\n  skillgate.allowed-domains:\n${hosts.join("\n")}`;
}

/** A store with one skill "base" holding SKILL.md and scripts/run.py. */
async function baseStore(): Promise<{ store: Store; data: string; hash: string }> {
  const { store, data } = await openTestStore();
  const created = await store.create("base", { "SKILL.md": skillMd("base"), "scripts/run.py": "print(1)\n" });
  return { store, data, hash: created.hash };
}

/** A refusal case: `setup` may write; the snapshot is taken after it, just before `action`. */
type Case = [
  label: string,
  code: string,
  action: (store: Store, data: string, hash: string) => Promise<unknown>,
  setup?: (store: Store, data: string) => Promise<unknown>,
];

const cases: Case[] = [
  ["create: 201 files", "too_many_files", (store) => store.create("many", textFiles("many", MAX_FILES, 1))],
  [
    "update: a 201st file",
    "too_many_files",
    (store) => store.updateFile("base", "r/one-more.md", "x"),
    (store) => {
      const write: Record<string, string> = {};
      for (let index = 0; index < MAX_FILES - 2; index += 1) write[`r/${index}.md`] = "x";
      return store.updateFiles("base", { write });
    },
  ],
  [
    "create: text over 256 KiB",
    "file_too_large",
    (store) =>
      store.create("big", { "SKILL.md": skillMd("big"), "a.md": "x".repeat(MAX_EDITABLE_BYTES + 1) }),
  ],
  [
    "update: text over 256 KiB (counted in UTF-8 bytes)",
    "file_too_large",
    (store) => store.updateFile("base", "a.md", "é".repeat(MAX_EDITABLE_BYTES / 2 + 1)),
  ],
  [
    "create: 21 files of 256 KiB (over 5 MiB)",
    "skill_too_large",
    (store) => store.create("huge", textFiles("huge", 21, MAX_EDITABLE_BYTES)),
  ],
  [
    "update: growing past 5 MiB",
    "skill_too_large",
    (store) => store.updateFiles("base", { write: { "r/a.md": "x".repeat(MAX_EDITABLE_BYTES) } }),
    (store) => store.updateFiles("base", { write: textFiles("base", 19, MAX_EDITABLE_BYTES) }),
  ],
  [
    "create: 51 allowed domains",
    "too_many_domains",
    (store) => store.create("net", { "SKILL.md": skillMd("net", domains(MAX_DOMAINS + 1)) }),
  ],
  ["create: existing name", "skill_exists", (store) => store.create("base", { "SKILL.md": skillMd("base") })],
  [
    "create: a folder nobody indexed",
    "skill_exists",
    (store) => store.create("stray", { "SKILL.md": skillMd("stray") }),
    async (_store, data) => {
      mkdirSync(join(data, "skills", "stray"));
      writeFileSync(join(data, "skills", "stray", "SKILL.md"), skillMd("stray"));
    },
  ],
  ["duplicate: onto an existing name", "skill_exists", (store) => store.duplicate(BUILTIN, "base")],
  [
    "create: built-in name",
    "builtin_read_only",
    (store) => store.create(BUILTIN, { "SKILL.md": skillMd(BUILTIN) }),
  ],
  ["update: built-in", "builtin_read_only", (store) => store.updateFile(BUILTIN, "a.md", "a")],
  ["remove file: built-in", "builtin_read_only", (store) => store.removeFile(BUILTIN, "scripts/help.py")],
  ["delete: built-in", "builtin_read_only", (store) => store.deleteSkill(BUILTIN)],
  ["disable: built-in", "builtin_read_only", (store) => store.disable(BUILTIN)],
  ["enable: built-in", "builtin_read_only", (store, _data, hash) => store.enable(BUILTIN, { hash })],
  ["duplicate: onto a built-in", "builtin_read_only", (store) => store.duplicate("base", BUILTIN)],
  [
    "create: bad name",
    "invalid_skill_name",
    (store) => store.create("Bad_Name", { "SKILL.md": skillMd("x") }),
  ],
  ["duplicate: bad new name", "invalid_skill_name", (store) => store.duplicate("base", "two words")],
  ["get: bad name", "invalid_skill_name", (store) => store.get("../base")],
  [
    "create: path escaping",
    "path_not_allowed",
    (store) => store.create("esc", { "SKILL.md": skillMd("esc"), "../base/SKILL.md": "x" }),
  ],
  ["update: absolute path", "path_not_allowed", (store) => store.updateFile("base", "/etc/passwd", "x")],
  ["update: backslash", "path_not_allowed", (store) => store.updateFile("base", "..\\base\\SKILL.md", "x")],
  [
    "create: NUL in the content",
    "path_not_allowed",
    (store) => store.create("nul", { "SKILL.md": skillMd("nul"), "a.md": "a\u0000b" }),
  ],
  ["update: hidden file", "path_not_allowed", (store) => store.updateFile("base", "scripts/.hidden", "x")],
  ["update: missing skill", "not_found", (store) => store.updateFile("missing", "a.md", "a")],
  ["delete: missing skill", "not_found", (store) => store.deleteSkill("missing")],
  ["enable: missing skill", "not_found", (store, _data, hash) => store.enable("missing", { hash })],
  ["create: no SKILL.md", "skill_invalid", (store) => store.create("bare", { "README.md": "hello" })],
  [
    "create: SKILL.md that is not YAML",
    "skill_invalid",
    (store) => store.create("yaml", { "SKILL.md": "---\nname: [unclosed\n---\nbody\n" }),
  ],
  [
    "create: SKILL.md naming another skill",
    "skill_invalid",
    (store) => store.create("one", { "SKILL.md": skillMd("two") }),
  ],
  [
    "create: SKILL.md without a name",
    "skill_invalid",
    (store) => store.create("anon", { "SKILL.md": "---\ndescription: no name here\n---\nbody\n" }),
  ],
  [
    "create: invalid parameters_schema",
    "skill_invalid",
    (store) =>
      store.create("schema", {
        "SKILL.md": skillMd("schema", 'metadata:\n  parameters_schema: \'{"type": "array"}\''),
      }),
  ],
  [
    "create: invalid tier",
    "skill_invalid",
    (store) =>
      store.create("tier", { "SKILL.md": skillMd("tier", "metadata:\n  skillgate.tier: everything") }),
  ],
  [
    "update: renaming in SKILL.md",
    "skill_invalid",
    (store) => store.updateFile("base", "SKILL.md", skillMd("other")),
  ],
  [
    "create: files is not a map",
    "invalid_argument",
    (store) => store.create("arr", ["SKILL.md"] as unknown as Record<string, string>),
  ],
  [
    "create: content is not text",
    "invalid_argument",
    (store) => store.create("num", { "SKILL.md": 7 } as unknown as Record<string, string>),
  ],
  ["update: nothing to change", "invalid_argument", (store) => store.updateFiles("base", {})],
];

describe("every refusal has its code and leaves the store byte-for-byte unchanged", () => {
  it.each(cases)("%s → %s", async (_label, code, action, setup) => {
    const { store, data, hash } = await baseStore();
    await setup?.(store, data);
    const before = snapshot(data);
    const error = await refusal(() => action(store, data, hash), code);
    expect(isStoreError(error)).toBe(true);
    expect((error as unknown as { httpStatus: number }).httpStatus).toBe(
      STORE_HTTP_STATUS[code as keyof typeof STORE_HTTP_STATUS],
    );
    expect(snapshot(data)).toEqual(before);
  });
});

describe("limits at their exact boundary are accepted", () => {
  it("200 skills fit; the 201st is too_many_skills and writes nothing", async () => {
    const { store, data } = await openTestStore();
    for (let index = 0; index < MAX_SKILLS; index += 1) {
      await store.create(`skill-${index}`, { "SKILL.md": skillMd(`skill-${index}`) });
    }
    const before = snapshot(data);
    const error = await refusal(
      () => store.create("one-more", { "SKILL.md": skillMd("one-more") }),
      "too_many_skills",
    );
    expect(error).toMatchObject({ httpStatus: 413, data: { count: 200, limit: 200 } });
    await refusal(() => store.duplicate(BUILTIN, "one-more"), "too_many_skills");
    expect(snapshot(data)).toEqual(before);
    // The built-in is not counted, and deleting one skill makes room again.
    await store.deleteSkill("skill-0");
    await store.create("one-more", { "SKILL.md": skillMd("one-more") });
  }, 180_000);

  it("a text file of exactly 256 KiB, 200 files and 50 domains are accepted", async () => {
    const { store } = await openTestStore();
    await store.create("edge", {
      "SKILL.md": skillMd("edge", domains(MAX_DOMAINS)),
      "a.md": "x".repeat(MAX_EDITABLE_BYTES),
    });
    await store.create("files", textFiles("files", MAX_FILES - 1, 1));
    expect((await store.get("files")).files).toHaveLength(MAX_FILES);
  });
});
