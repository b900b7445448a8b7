import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillListCache } from "../../../src/app/owner/skill-list-cache.js";
import { Store } from "../../../src/store/store.js";
import { makeTree } from "../../helpers/skill-tree.js";

/** The skills list kept by the store's and the catalog's revisions (docs/http-api.md, "Skills"). */

const SKILL = (description: string) => `---\nname: notes\ndescription: ${description}\n---\n\n# Notes\n`;

async function setup() {
  const tree = makeTree("skillgate-list-cache-");
  const data = join(tree, "data");
  const store = await Store.open({ dataFolder: data, checkScripts: false });
  const { hash } = await store.create("notes", { "SKILL.md": SKILL("First words.") });
  return { data, store, hash };
}

const described = (snapshot: { skills: readonly { name: string; description: string }[] }) =>
  snapshot.skills.find((skill) => skill.name === "notes")?.description;

describe("SkillListCache", () => {
  it("answers the same snapshot while neither revision moves", async () => {
    const { store } = await setup();
    const cache = new SkillListCache(store, { catalogRevision: () => 7 });
    const first = await cache.current();
    const [second, third] = await Promise.all([cache.current(), cache.current()]);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first.revision).toBe(await store.revision());
  });

  it("reads again after a store write, from this process's store or another Store on the folder", async () => {
    const { data, store, hash } = await setup();
    const cache = new SkillListCache(store, { catalogRevision: () => 7 });
    const first = await cache.current();
    await store.enable("notes", { hash });
    const afterOwn = await cache.current();
    expect(afterOwn).not.toBe(first);
    expect(afterOwn.revision).toBe(first.revision + 1);
    // Another Store object stands for another process: only the files on disk are shared.
    const other = await Store.open({ dataFolder: data, checkScripts: false });
    await other.create("second", { "SKILL.md": "---\nname: second\ndescription: Two.\n---\n" });
    const afterOther = await cache.current();
    expect(afterOther.revision).toBe(afterOwn.revision + 1);
    expect(afterOther.skills.map((skill) => skill.name)).toContain("second");
  });

  it("reads a hand-edited SKILL.md again once the catalog's revision moves", async () => {
    const { store } = await setup();
    let catalogRevision = 3;
    const cache = new SkillListCache(store, { catalogRevision: () => catalogRevision });
    expect(described(await cache.current())).toBe("First words.");
    writeFileSync(join(store.folder, "notes", "SKILL.md"), SKILL("Edited by hand."));
    // Nothing told the cache yet: the kept list stands (the store's revision did not move).
    expect(described(await cache.current())).toBe("First words.");
    catalogRevision += 1;
    expect(described(await cache.current())).toBe("Edited by hand.");
  });

  it("without a catalog revision keeps the list by the store's revision alone", async () => {
    const { store, hash } = await setup();
    const cache = new SkillListCache(store, { catalogRevision: () => undefined });
    const first = await cache.current();
    expect(await cache.current()).toBe(first);
    await store.enable("notes", { hash });
    expect((await cache.current()).skills.find((skill) => skill.name === "notes")?.enabled).toBe(true);
  });

  it("with the revision file missing, reads the index's revision and still sees writes", async () => {
    const { store, hash } = await setup();
    const cache = new SkillListCache(store, { catalogRevision: () => 1 });
    const first = await cache.current();
    rmSync(join(store.folder, ".revision"));
    expect(await cache.current()).toBe(first);
    await store.enable("notes", { hash });
    const after = await cache.current();
    expect(after.revision).toBe(first.revision + 1);
    expect(after.skills.find((skill) => skill.name === "notes")?.enabled).toBe(true);
  });
});
