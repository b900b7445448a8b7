import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { Store } from "../../src/store/store.js";
import { BUILTIN, openTestStore, readIndexJson, refusal, skillMd, snapshot } from "./store-helpers.js";

const fixedNow = () => new Date("2026-01-02T03:04:05.000Z");

describe("Store layout", () => {
  it("keeps index.json and one folder per skill under <data>/skills", async () => {
    const { store, data } = await openTestStore({ now: fixedNow });
    expect(store.folder).toBe(join(data, "skills"));
    const created = await store.create("pdf-tools", {
      "SKILL.md": skillMd("pdf-tools"),
      "scripts/extract.py": "print('text')\n",
      "references/format.md": "# Format\n",
    });
    expect(created).toMatchObject({
      name: "pdf-tools",
      enabled: false,
      source: "owner",
      updated: "2026-01-02T03:04:05.000Z",
      revision: 1,
    });
    const folder = join(data, "skills", "pdf-tools");
    expect(readFileSync(join(folder, "SKILL.md"), "utf8")).toBe(skillMd("pdf-tools"));
    expect(readFileSync(join(folder, "scripts", "extract.py"), "utf8")).toBe("print('text')\n");
    expect(created.hash).toBe(hashSkillFolder(folder).hash);
    expect(readIndexJson(data)).toEqual({
      version: 1,
      revision: 1,
      updated: "2026-01-02T03:04:05.000Z",
      skills: {
        "pdf-tools": {
          enabled: false,
          source: "owner",
          updated: "2026-01-02T03:04:05.000Z",
          hash: created.hash,
        },
      },
    });
    expect(statSync(join(folder, "SKILL.md")).mode & 0o777).toBe(0o600);
  });

  it("lists built-ins and stored skills, sorted, with their state", async () => {
    const { store } = await openTestStore();
    await store.create("zeta", { "SKILL.md": skillMd("zeta") });
    await store.create("alpha", { "SKILL.md": skillMd("alpha") }, { enabled: true });
    const listed = await store.list();
    expect(listed.map((skill) => [skill.name, skill.source, skill.enabled])).toEqual([
      ["alpha", "owner", true],
      [BUILTIN, "builtin", true],
      ["zeta", "owner", false],
    ]);
  });

  it("enabledSkills gives the built-ins and the enabled stored skills with their folders", async () => {
    const { store, data, builtins } = await openTestStore();
    await store.create("off", { "SKILL.md": skillMd("off") });
    await store.create("on", { "SKILL.md": skillMd("on") }, { enabled: true });
    expect((await store.enabledSkills()).map((skill) => [skill.name, skill.folder])).toEqual([
      [BUILTIN, join(builtins, BUILTIN)],
      ["on", join(data, "skills", "on")],
    ]);
  });

  it("gets a skill with its SKILL.md, files and current hash", async () => {
    const { store } = await openTestStore();
    const created = await store.create("notes", { "SKILL.md": skillMd("notes"), "assets/a.txt": "a" });
    const skill = await store.get("notes");
    expect(skill).toMatchObject({
      name: "notes",
      source: "owner",
      enabled: false,
      hash: created.hash,
      description: "Test skill notes for the store tests.",
      skillFile: skillMd("notes"),
      files: [
        { path: "SKILL.md", size: Buffer.byteLength(skillMd("notes")) },
        { path: "assets/a.txt", size: 1 },
      ],
    });
    expect(skill.recordedHash).toBeUndefined();
    expect(Buffer.from(await store.readFile("notes", "assets/a.txt")).toString()).toBe("a");
    await refusal(() => store.readFile("notes", "assets/missing.txt"), "not_found");
    await refusal(() => store.readFile("notes", "../notes/SKILL.md"), "path_not_allowed");
    await refusal(() => store.get("missing"), "not_found");
  });

  it("a skill named like an Object property is an ordinary skill", async () => {
    const { store, data } = await openTestStore();
    await store.create("constructor", { "SKILL.md": skillMd("constructor") });
    await store.create("prototype", { "SKILL.md": skillMd("prototype") });
    expect(Object.keys(readIndexJson(data).skills)).toEqual(["constructor", "prototype"]);
    const reopened = await Store.open({ dataFolder: data, builtinFolder: join(data, "none") });
    expect((await reopened.list()).map((skill) => skill.name)).toEqual(["constructor", "prototype"]);
  });
});

describe("Store writes", () => {
  it("updateFile adds and replaces a file, keeps the enabled state and changes the hash", async () => {
    const { store, data } = await openTestStore();
    const created = await store.create("tool", { "SKILL.md": skillMd("tool") }, { enabled: true });
    const added = await store.updateFile("tool", "scripts/run.sh", "echo one\n");
    expect(added.hash).not.toBe(created.hash);
    expect(added.enabled).toBe(true);
    expect(added.revision).toBe(2);
    const replaced = await store.updateFile("tool", "scripts/run.sh", "echo two\n");
    expect(readFileSync(join(data, "skills", "tool", "scripts", "run.sh"), "utf8")).toBe("echo two\n");
    expect(replaced.hash).toBe(hashSkillFolder(join(data, "skills", "tool")).hash);
    expect(readIndexJson(data).skills.tool?.hash).toBe(replaced.hash);
  });

  it("writing identical content is not a change", async () => {
    const { store } = await openTestStore();
    const created = await store.create("same", { "SKILL.md": skillMd("same") });
    const again = await store.updateFile("same", "SKILL.md", skillMd("same"));
    expect(again.revision).toBe(created.revision);
    expect(await store.revision()).toBe(1);
  });

  it("removeFile removes a file; removing SKILL.md is refused", async () => {
    const { store, data } = await openTestStore();
    await store.create("tool", { "SKILL.md": skillMd("tool"), "scripts/a.py": "a", "scripts/b.py": "b" });
    await store.removeFile("tool", "scripts/a.py");
    expect(existsSync(join(data, "skills", "tool", "scripts", "a.py"))).toBe(false);
    expect(existsSync(join(data, "skills", "tool", "scripts", "b.py"))).toBe(true);
    const before = snapshot(data);
    await refusal(() => store.removeFile("tool", "SKILL.md"), "skill_invalid");
    await refusal(() => store.removeFile("tool", "scripts/none.py"), "not_found");
    expect(snapshot(data)).toEqual(before);
  });

  it("updateFiles writes and removes several files as one change with one revision", async () => {
    const { store } = await openTestStore();
    await store.create("multi", { "SKILL.md": skillMd("multi"), "old.md": "old" });
    const changed = await store.updateFiles("multi", {
      write: { "new.md": "new", "more/x.md": "x" },
      remove: ["old.md"],
    });
    expect(changed.revision).toBe(2);
    expect((await store.get("multi")).files.map((file) => file.path)).toEqual([
      "SKILL.md",
      "more/x.md",
      "new.md",
    ]);
  });

  it("updateFiles with replaceAll makes the skill exactly the files given", async () => {
    const { store } = await openTestStore();
    await store.create("whole", { "SKILL.md": skillMd("whole"), "a.md": "a", "scripts/b.py": "b" });
    await store.updateFiles("whole", {
      write: { "SKILL.md": skillMd("whole", "", "New body.\n"), "c.md": "c" },
      replaceAll: true,
    });
    const skill = await store.get("whole");
    expect(skill.files.map((file) => file.path)).toEqual(["SKILL.md", "c.md"]);
    expect(skill.skillFile).toContain("New body.");
    await refusal(
      () => store.updateFiles("whole", { write: { "d.md": "d" }, replaceAll: true }),
      "skill_invalid",
    );
  });

  it("updates are refused when the caller's expected hash is stale", async () => {
    const { store, data } = await openTestStore();
    const created = await store.create("guarded", { "SKILL.md": skillMd("guarded") });
    await store.updateFile("guarded", "a.md", "a", { expectedHash: created.hash });
    const before = snapshot(data);
    const error = await refusal(
      () => store.updateFile("guarded", "b.md", "b", { expectedHash: created.hash }),
      "skill_changed",
    );
    expect((error as unknown as { httpStatus: number }).httpStatus).toBe(409);
    expect(snapshot(data)).toEqual(before);
  });

  it("deleteSkill removes the folder and the entry", async () => {
    const { store, data } = await openTestStore();
    await store.create("gone", { "SKILL.md": skillMd("gone") });
    const deleted = await store.deleteSkill("gone");
    expect(deleted.revision).toBe(2);
    expect(existsSync(join(data, "skills", "gone"))).toBe(false);
    expect(readIndexJson(data).skills).toEqual({});
    expect(await store.list()).toHaveLength(1);
    await refusal(() => store.deleteSkill("gone"), "not_found");
  });

  it("duplicate copies a stored skill under a new name with its SKILL.md name rewritten", async () => {
    const { store, data } = await openTestStore();
    const text = skillMd("original", "# keep this comment\nlicense: MIT");
    await store.create("original", { "SKILL.md": text, "scripts/run.py": "print(1)\n" }, { enabled: true });
    const copy = await store.duplicate("original", "copy");
    expect(copy).toMatchObject({ name: "copy", enabled: false, source: "owner" });
    const copied = readFileSync(join(data, "skills", "copy", "SKILL.md"), "utf8");
    expect(copied).toBe(text.replace("name: original", "name: copy"));
    expect(readFileSync(join(data, "skills", "copy", "scripts", "run.py"), "utf8")).toBe("print(1)\n");
    expect((await store.list()).find((skill) => skill.name === "copy")?.origin).toBe("duplicate:original");
    await refusal(() => store.duplicate("original", "copy"), "skill_exists");
    await refusal(() => store.duplicate("missing", "other"), "not_found");
  });

  it("enable needs the reviewed hash; disable turns it off", async () => {
    const { store } = await openTestStore();
    const created = await store.create("draft", { "SKILL.md": skillMd("draft") });
    const enabled = await store.enable("draft", { hash: created.hash });
    expect(enabled.enabled).toBe(true);
    expect(enabled.revision).toBe(2);
    expect((await store.enable("draft", { hash: created.hash })).revision).toBe(2);
    const disabled = await store.disable("draft");
    expect(disabled.enabled).toBe(false);
    expect(disabled.revision).toBe(3);
    expect((await store.disable("draft")).revision).toBe(3);
  });

  it("enable with a hash other than the current one is skill_changed (409) and changes nothing", async () => {
    const { store, data } = await openTestStore();
    const created = await store.create("draft", { "SKILL.md": skillMd("draft") });
    await store.updateFile("draft", "scripts/x.sh", "echo changed after review\n");
    const before = snapshot(data);
    const error = await refusal(() => store.enable("draft", { hash: created.hash }), "skill_changed");
    expect(error).toMatchObject({ httpStatus: 409, data: { name: "draft", expected: created.hash } });
    expect(snapshot(data)).toEqual(before);
  });

  it("enable says which case a wrong hash is: earlier version, hand edit, never this skill's, malformed", async () => {
    const { store, data } = await openTestStore();
    const created = await store.create("draft", { "SKILL.md": skillMd("draft") });
    const other = await store.create("other", { "SKILL.md": skillMd("other") });
    const changed = await store.updateFile("draft", "scripts/x.sh", "echo changed after review\n");
    const mistyped = `${changed.hash.slice(0, 63)}${changed.hash.endsWith("0") ? "1" : "0"}`;
    const cases: readonly [string, string, string, Record<string, unknown>][] = [
      ["an earlier version", created.hash, "skill_changed", { seen: "earlier", expected: created.hash }],
      ["a mistyped hash", mistyped, "unknown_hash", { given: mistyped, actual: changed.hash }],
      ["another skill's hash", other.hash, "unknown_hash", { given: other.hash }],
      ["an 8-hex prefix", changed.hash.slice(0, 8), "invalid_argument", { argument: "hash" }],
    ];
    const before = snapshot(data);
    for (const [label, hash, code, fields] of cases) {
      const error = await refusal(() => store.enable("draft", { hash }), code);
      expect(error, label).toMatchObject({ data: fields });
      if (code !== "invalid_argument")
        expect((error as unknown as { httpStatus: number }).httpStatus, label).toBe(409);
    }
    expect(
      (await refusal(() => store.enable("draft", { hash: mistyped }), "unknown_hash")).message,
    ).toContain('is not one skill "draft" has ever had');
    expect(snapshot(data)).toEqual(before);
    // A hand edit after the hash was recorded: the recorded hash is now stale.
    writeFileSync(join(data, "skills", "draft", "notes.md"), "edited by hand\n");
    const edited = await refusal(() => store.enable("draft", { hash: changed.hash }), "skill_changed");
    expect(edited).toMatchObject({ data: { seen: "recorded", expected: changed.hash } });
    expect(edited.message).toContain("changed on disk since");
  });

  it("enable refuses a short or missing hash: an 8-hex prefix could be forged", async () => {
    const { store } = await openTestStore();
    const created = await store.create("draft", { "SKILL.md": skillMd("draft") });
    await refusal(() => store.enable("draft", { hash: created.hash.slice(0, 8) }), "invalid_argument");
    await refusal(() => store.enable("draft", { hash: created.hash.toUpperCase() }), "invalid_argument");
    await refusal(() => store.enable("draft", undefined as unknown as { hash: string }), "invalid_argument");
  });

  it("new skills are disabled; only the owner may create one enabled", async () => {
    const { store } = await openTestStore();
    expect((await store.create("by-owner", { "SKILL.md": skillMd("by-owner") })).enabled).toBe(false);
    const drafted = await store.create(
      "by-assistant",
      { "SKILL.md": skillMd("by-assistant") },
      { source: "assistant" },
    );
    expect(drafted).toMatchObject({ enabled: false, source: "assistant" });
    await refusal(
      () => store.create("sneaky", { "SKILL.md": skillMd("sneaky") }, { source: "assistant", enabled: true }),
      "invalid_argument",
    );
    await refusal(
      () => store.create("odd", { "SKILL.md": skillMd("odd") }, { source: "nobody" as "owner" }),
      "invalid_argument",
    );
  });
});
