import { describe, expect, it } from "vitest";
import { openTestStore, refusal, skillMd } from "./store-helpers.js";

/**
 * Invariant 2 through the store: any change of any file changes the hash, so an enable (or
 * a grant) bound to the old hash no longer matches.
 */
describe("the content hash of a stored skill", () => {
  const base = {
    "SKILL.md": skillMd("hashed"),
    "scripts/run.py": "print('a')\n",
    "references/r.md": "ref\n",
  };

  it.each([
    ["one byte of SKILL.md", { write: { "SKILL.md": skillMd("hashed").replace("Follow", "Fellow") } }],
    ["one byte of a script", { write: { "scripts/run.py": "print('b')\n" } }],
    ["a byte appended", { write: { "references/r.md": "ref\n\n" } }],
    ["a file added", { write: { "assets/new.txt": "" } }],
    ["a file removed", { remove: ["references/r.md"] }],
    ["a file renamed", { write: { "references/s.md": "ref\n" }, remove: ["references/r.md"] }],
    ["a file moved to another folder", { write: { "assets/r.md": "ref\n" }, remove: ["references/r.md"] }],
  ])("changes when %s", async (_label, change) => {
    const { store } = await openTestStore();
    const created = await store.create("hashed", base);
    const changed = await store.updateFiles("hashed", change);
    expect(changed.hash).not.toBe(created.hash);
    expect(changed.hash).toMatch(/^[0-9a-f]{64}$/);
    await refusal(() => store.enable("hashed", { hash: created.hash }), "skill_changed");
    expect((await store.enable("hashed", { hash: changed.hash })).enabled).toBe(true);
  });

  it("is the same for the same content, whatever the order the files were given in", async () => {
    const { store } = await openTestStore();
    const first = await store.create("hashed", base);
    await store.deleteSkill("hashed");
    const reversed = Object.fromEntries(Object.entries(base).reverse());
    const second = await store.create("hashed", reversed);
    expect(second.hash).toBe(first.hash);
  });
});
