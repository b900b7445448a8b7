import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { Store } from "../../src/store/store.js";
import { openTestStore, readIndexJson, refusal, skillMd, snapshot } from "./store-helpers.js";

/** The pid of a process that has exited, so no live process owns it (right after it exits). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("reconcile at open: reports, never deletes", () => {
  it("reports a hand-deleted folder, a hand-added folder and a hand-edited file, and changes none of them", async () => {
    const { store, data, builtins } = await openTestStore();
    await store.create("deleted", { "SKILL.md": skillMd("deleted") });
    const edited = await store.create("edited", {
      "SKILL.md": skillMd("edited"),
      "scripts/run.sh": "echo 1\n",
    });
    const skills = join(data, "skills");
    rmSync(join(skills, "deleted"), { recursive: true });
    mkdirSync(join(skills, "added"));
    writeFileSync(join(skills, "added", "SKILL.md"), skillMd("added"));
    writeFileSync(join(skills, "edited", "scripts", "run.sh"), "echo 2\n");
    writeFileSync(join(skills, "notes.txt"), "a person's notes");
    const before = snapshot(data);

    const reopened = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    const findings = reopened.report.findings.map((finding) => [finding.kind, finding.name ?? finding.path]);
    expect(findings).toEqual([
      ["folder_without_entry", "added"],
      ["hash_mismatch", "edited"],
      ["unexpected_entry", join(skills, "notes.txt")],
      ["entry_without_folder", "deleted"],
    ]);
    const mismatch = reopened.report.findings.find((finding) => finding.kind === "hash_mismatch");
    expect(mismatch).toMatchObject({
      recordedHash: edited.hash,
      actualHash: hashSkillFolder(join(skills, "edited")).hash,
    });
    expect(snapshot(data)).toEqual(before);
    expect(await reopened.reconcile()).toHaveLength(4);
    expect(snapshot(data)).toEqual(before);
  });

  it("a hand-edited skill shows its current hash; enabling with that hash records it", async () => {
    const { store, data } = await openTestStore();
    const created = await store.create("edited", { "SKILL.md": skillMd("edited") });
    writeFileSync(join(data, "skills", "edited", "extra.md"), "added by hand\n");
    const skill = await store.get("edited");
    expect(skill.recordedHash).toBe(created.hash);
    expect(skill.hash).not.toBe(created.hash);
    await refusal(() => store.enable("edited", { hash: created.hash }), "skill_changed");
    await store.enable("edited", { hash: skill.hash });
    expect(readIndexJson(data).skills.edited?.hash).toBe(skill.hash);
    expect(await store.reconcile()).toEqual([]);
  });

  it("a hidden file added by hand is listed by get, but the skill cannot be enabled until it goes", async () => {
    const { store, data } = await openTestStore();
    await store.create("finder", { "SKILL.md": skillMd("finder") });
    writeFileSync(join(data, "skills", "finder", ".DS_Store"), "finder metadata");
    const skill = await store.get("finder");
    expect(skill.files.map((file) => file.path)).toEqual([".DS_Store", "SKILL.md"]);
    await refusal(() => store.enable("finder", { hash: skill.hash }), "path_not_allowed");
    rmSync(join(data, "skills", "finder", ".DS_Store"));
    await store.enable("finder", { hash: (await store.get("finder")).hash });
  });

  it("reports a stored skill whose SKILL.md was broken by hand", async () => {
    const { store, data } = await openTestStore();
    await store.create("fragile", { "SKILL.md": skillMd("fragile") });
    writeFileSync(join(data, "skills", "fragile", "SKILL.md"), "---\nname: fragile\n");
    const kinds = (await store.reconcile()).map((finding) => finding.kind);
    expect(kinds).toEqual(["hash_mismatch", "skill_invalid"]);
    expect(existsSync(join(data, "skills", "fragile", "SKILL.md"))).toBe(true);
  });

  it("removes and reports leftovers of its own interrupted writes: dead staging, trash, temporary files", async () => {
    const { store, data, builtins } = await openTestStore();
    await store.create("kept", { "SKILL.md": skillMd("kept") });
    const skills = join(data, "skills");
    const staging = join(skills, ".staging", `${deadPid()}-0123456789ab`);
    mkdirSync(staging);
    writeFileSync(join(staging, "SKILL.md"), "half");
    mkdirSync(join(skills, ".trash", "kept-1-0123456789ab"));
    writeFileSync(join(skills, ".tmp-index.json-1-0123456789ab"), "{");
    const reopened = await Store.open({ dataFolder: data, builtinFolder: builtins });
    expect(reopened.report.findings.map((finding) => [finding.kind, finding.removed])).toEqual([
      ["leftover_trash", true],
      ["leftover_staging", true],
      ["leftover_temporary", true],
    ]);
    expect(readdirSync(join(skills, ".staging"))).toEqual([]);
    expect(readdirSync(join(skills, ".trash"))).toEqual([]);
    expect(existsSync(join(skills, ".tmp-index.json-1-0123456789ab"))).toBe(false);
    expect(await reopened.reconcile()).toEqual([]);
  });

  it("refuses to open over an index.json that is not the store's", async () => {
    const { data, builtins } = await openTestStore();
    writeFileSync(join(data, "skills", "index.json"), '{"version": 1, "revision": "x", "skills": {}}');
    await refusal(() => Store.open({ dataFolder: data, builtinFolder: builtins }), "store_corrupt");
  });
});

describe("the journal finishes or undoes a change interrupted at any step", () => {
  const journal = (revision: number, kind: string, extra: Record<string, string>) =>
    `${JSON.stringify({ version: 1, revision, kind, name: "s", ...extra })}\n`;

  /** A store holding skill "s" at revision 1, its folder snapshot, and a prepared new version. */
  async function prepared() {
    const { store, data, builtins } = await openTestStore();
    await store.create("s", { "SKILL.md": skillMd("s"), "a.md": "old\n" });
    const skills = join(data, "skills");
    const staged = join(skills, ".staging", "1-aaaaaaaaaaaa");
    cpSync(join(skills, "s"), staged, { recursive: true });
    writeFileSync(join(staged, "a.md"), "new\n");
    const reopen = () => Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    return { store, data, skills, staged, reopen, old: snapshot(join(skills, "s")) };
  }

  it("replace, after the old folder was moved aside: rolled back", async () => {
    const { skills, reopen, old } = await prepared();
    writeFileSync(
      join(skills, ".journal.json"),
      journal(2, "replace", { staged: "1-aaaaaaaaaaaa", trash: "s-1-bbbbbbbbbbbb" }),
    );
    renameSync(join(skills, "s"), join(skills, ".trash", "s-1-bbbbbbbbbbbb"));
    const store = await reopen();
    expect(store.report.findings.map((finding) => finding.kind)).toEqual(["interrupted_change"]);
    expect(store.report.findings[0]?.message).toContain("rolled back");
    expect(snapshot(join(skills, "s"))).toEqual(old);
    expect(await store.reconcile()).toEqual([]);
    expect(readdirSync(join(skills, ".staging"))).toEqual([]);
  });

  it("replace, after the new folder was renamed in but before index.json: rolled back", async () => {
    const { skills, staged, reopen, old } = await prepared();
    writeFileSync(
      join(skills, ".journal.json"),
      journal(2, "replace", { staged: "1-aaaaaaaaaaaa", trash: "s-1-bbbbbbbbbbbb" }),
    );
    renameSync(join(skills, "s"), join(skills, ".trash", "s-1-bbbbbbbbbbbb"));
    renameSync(staged, join(skills, "s"));
    const store = await reopen();
    expect(snapshot(join(skills, "s"))).toEqual(old);
    expect(await store.reconcile()).toEqual([]);
    expect(readdirSync(join(skills, ".trash"))).toEqual([]);
  });

  it("replace, after index.json was written: finished", async () => {
    const { store: first, skills, staged, reopen } = await prepared();
    rmSync(staged, { recursive: true });
    const updated = await first.updateFile("s", "a.md", "new\n");
    writeFileSync(join(skills, ".journal.json"), journal(2, "replace", { trash: "s-1-bbbbbbbbbbbb" }));
    mkdirSync(join(skills, ".trash", "s-1-bbbbbbbbbbbb"));
    const store = await reopen();
    expect(store.report.findings[0]?.message).toContain("finished");
    expect((await store.get("s")).hash).toBe(updated.hash);
    expect(await store.reconcile()).toEqual([]);
  });

  it("create, after the folder was renamed in but before index.json: rolled back", async () => {
    const { skills, reopen } = await prepared();
    const staged = join(skills, ".staging", "1-cccccccccccc");
    mkdirSync(staged);
    writeFileSync(join(staged, "SKILL.md"), skillMd("t"));
    writeFileSync(
      join(skills, ".journal.json"),
      journal(2, "create", { staged: "1-cccccccccccc" }).replace('"s"', '"t"'),
    );
    renameSync(staged, join(skills, "t"));
    const store = await reopen();
    expect(existsSync(join(skills, "t"))).toBe(false);
    expect(await store.reconcile()).toEqual([]);
  });

  it("delete, after the folder was moved aside: rolled back", async () => {
    const { skills, reopen, old } = await prepared();
    writeFileSync(join(skills, ".journal.json"), journal(2, "delete", { trash: "s-1-dddddddddddd" }));
    renameSync(join(skills, "s"), join(skills, ".trash", "s-1-dddddddddddd"));
    const store = await reopen();
    expect(snapshot(join(skills, "s"))).toEqual(old);
    expect(await store.reconcile()).toEqual([]);
  });
});
