import { lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LoadCache } from "../../src/catalog/load-cache.js";
import type { LoadedSkill } from "../../src/skill/load-skill.js";
import { makeTree } from "../helpers/skill-tree.js";

/**
 * The discovery cache keeps, from one run to the next, a load per SKILL.md with the
 * version it was read from. A load is reused only for the same version, read long enough
 * after its last change; files are looked for where they were last time and found out of
 * order too; what a run did not visit is gone after it.
 */

/** A distinct load per file, to tell them apart by identity. */
const loadFor = (): LoadedSkill => ({ skill: undefined, diagnostics: [], governanceInvalid: false });
const LATE = Date.now() + 60_000;

/** A tree of `count` files and a cache that read them all in one finished run. */
function readAll(count: number) {
  const tree = makeTree();
  const parent = `${tree}/`;
  const names = Array.from({ length: count }, (_, index) => `file-${String(index).padStart(3, "0")}`);
  const cache = new LoadCache();
  cache.start();
  const loads = names.map((name) => {
    writeFileSync(join(tree, name), `version one of ${name}`);
    expect(cache.find(parent, name)).toBe(-1);
    const loaded = loadFor();
    cache.add(parent, name, loaded, lstatSync(join(tree, name)), LATE);
    return loaded;
  });
  cache.finish();
  return { tree, parent, names, cache, loads };
}

describe("LoadCache", () => {
  it("finds every file of the last run in order, past its first array size, and keeps it while unchanged", () => {
    const { tree, parent, names, cache, loads } = readAll(150);
    for (let run = 0; run < 2; run += 1) {
      cache.start();
      names.forEach((name, index) => {
        const position = cache.find(parent, name);
        expect(position).toBe(index);
        expect(cache.keepIfUnchanged(position, lstatSync(join(tree, name)))).toBe(loads[index]);
      });
      cache.finish();
    }
  });

  it("finds files out of order, reads a changed one again, and forgets what a run did not visit", () => {
    const { tree, parent, names, cache, loads } = readAll(5);
    writeFileSync(join(tree, "file-001"), "a longer second version of the file");
    cache.start();
    // Visited backwards, skipping file-002.
    const visited = [4, 3, 1, 0];
    for (const index of visited) {
      const name = names[index] as string;
      const position = cache.find(parent, name);
      expect(position).toBe(index);
      const kept = cache.keepIfUnchanged(position, lstatSync(join(tree, name)));
      if (index === 1) {
        expect(kept).toBeUndefined();
        cache.add(parent, name, loadFor(), lstatSync(join(tree, name)), LATE);
      } else {
        expect(kept).toBe(loads[index]);
      }
    }
    expect(cache.find(parent, "never-seen")).toBe(-1);
    expect(cache.find("/elsewhere/", "file-000")).toBe(-1);
    cache.finish();
    cache.start();
    expect(cache.find(parent, "file-002")).toBe(-1);
    expect(cache.find(parent, "file-004")).toBe(0);
  });

  it("does not trust a version read within the racy window of its last change", () => {
    const tree = makeTree();
    const file = join(tree, "fresh");
    writeFileSync(file, "x");
    const cache = new LoadCache();
    cache.start();
    const stats = lstatSync(file);
    cache.add(`${tree}/`, "fresh", loadFor(), stats, stats.ctimeMs + 10);
    cache.finish();
    cache.start();
    expect(cache.keepIfUnchanged(cache.find(`${tree}/`, "fresh"), lstatSync(file))).toBeUndefined();
  });

  it("a run that did not finish leaves nothing behind for the next", () => {
    const { tree, parent, names, cache } = readAll(3);
    cache.start();
    cache.add(parent, "extra", loadFor(), lstatSync(join(tree, "file-000")), LATE);
    // No finish: the next run starts from the last finished one.
    cache.start();
    expect(cache.find(parent, names[0] as string)).toBe(0);
    expect(cache.find(parent, "extra")).toBe(-1);
  });
});
