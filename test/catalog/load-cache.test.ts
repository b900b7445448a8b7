import { lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LoadCache } from "../../src/catalog/load-cache.js";
import type { LoadedSkill } from "../../src/skill/load-skill.js";
import { makeTree } from "../helpers/skill-tree.js";

/**
 * The discovery cache keeps a load per SKILL.md with the version it was read from in one
 * shared array of numbers: a load is reused only for the same version, read long enough
 * after its last change; slots are reused and the array grows past its first size.
 */

/** A distinct load per file, to tell them apart by identity. */
const loadFor = (_file: string): LoadedSkill => ({
  skill: undefined,
  diagnostics: [],
  governanceInvalid: false,
});
const LATE = Date.now() + 60_000;

describe("LoadCache", () => {
  it("reuses a load only while the file's version is the one read, and grows past 64 files", () => {
    const tree = makeTree();
    const cache = new LoadCache();
    const parent = `${tree}/`;
    const names = Array.from({ length: 150 }, (_, index) => `file-${index}`);
    expect(cache.slotOf(parent, "file-0")).toBe(-1);
    const loads = names.map((name) => {
      writeFileSync(join(tree, name), `version one of ${name}`);
      const loaded = loadFor(name);
      cache.add(parent, name, loaded, lstatSync(join(tree, name)), LATE);
      return loaded;
    });
    names.forEach((name, index) => {
      const slot = cache.slotOf(parent, name);
      expect(slot).not.toBe(-1);
      expect(cache.loadIfUnchanged(slot, lstatSync(join(tree, name)))).toBe(loads[index]);
    });
    writeFileSync(join(tree, "file-70"), "a longer second version of the file");
    expect(
      cache.loadIfUnchanged(cache.slotOf(parent, "file-70"), lstatSync(join(tree, "file-70"))),
    ).toBeUndefined();
    expect(cache.slotOf(parent, "never-seen")).toBe(-1);
    expect(cache.slotOf("/elsewhere/", "file-0")).toBe(-1);
  });

  it("does not trust a version read within the racy window of its last change", () => {
    const tree = makeTree();
    const file = join(tree, "fresh");
    writeFileSync(file, "x");
    const cache = new LoadCache();
    const stats = lstatSync(file);
    cache.add(`${tree}/`, "fresh", loadFor(file), stats, stats.ctimeMs + 10);
    expect(cache.loadIfUnchanged(cache.slotOf(`${tree}/`, "fresh"), lstatSync(file))).toBeUndefined();
  });

  it("forgets a file and gives its slot to the next one", () => {
    const tree = makeTree();
    const first = join(tree, "first");
    const second = join(tree, "second");
    writeFileSync(first, "1");
    writeFileSync(second, "2");
    const cache = new LoadCache();
    cache.add("", first, loadFor(first), lstatSync(first), LATE);
    const slot = cache.slotOf("", first);
    cache.delete("", first);
    expect(cache.slotOf("", first)).toBe(-1);
    const loaded = loadFor(second);
    cache.add(`${tree}/`, "second", loaded, lstatSync(second), LATE);
    expect(cache.slotOf(`${tree}/`, "second")).toBe(slot);
    expect(cache.loadIfUnchanged(slot, lstatSync(second))).toBe(loaded);
  });
});
