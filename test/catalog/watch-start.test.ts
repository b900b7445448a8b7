import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { SkillSignatures } from "../../src/catalog/skill-signatures.js";
import type { CatalogChange, CatalogWatch, CatalogWatchOptions } from "../../src/catalog/watch.js";
import { eventually } from "../helpers/eventually.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

// Start-up of a watch over a catalog too large to watch in one go (docs/mcp.md, "The catalog,
// kept by revision"): watches are placed a slice at a time, and nothing is hashed to start.
// One watch per slice here stands in for the 500 of a real slice over 10,000 skills.

const running: CatalogWatch[] = [];
afterEach(() => {
  for (const watch of running.splice(0)) watch.stop();
});

/** A catalog over one project root holding `count` skills, each with a `scripts/` folder. */
function catalogOf(count: number) {
  const tree = makeTree("skillgate-watch-start-");
  const skills = join(tree, "project", ".agents", "skills");
  const folders: string[] = [];
  for (let index = 0; index < count; index += 1)
    folders.push(writeSkill(skills, `skill-${index}`, { files: { "scripts/run.py": "print(1)\n" } }));
  const catalog = createCatalog({
    ...isolatedFolders(tree),
    roots: [join(tree, "project")],
    builtins: false,
  });
  return { skills, folders, catalog };
}

function startWatch(catalog: ReturnType<typeof createCatalog>, options: Partial<CatalogWatchOptions> = {}) {
  const changes: CatalogChange[] = [];
  const watch = catalog.watch({
    intervalMs: 3_600_000,
    settleMs: 5,
    onChange: (change) => changes.push(change),
    ...options,
  });
  running.push(watch);
  return { watch, changes };
}

const names = (catalog: ReturnType<typeof createCatalog>) =>
  catalog.discover().skills.map((skill) => skill.name);

describe("placing watches off the first call's path", () => {
  it("answers while watches are placed, each call looking at the tree, then keeps by revision", async () => {
    const { skills, catalog } = catalogOf(6);
    const { watch } = startWatch(catalog, { watchesPerSlice: 1 });
    // 6 skills with scripts/ are 13 folders and more; one was placed before watch() returned.
    expect(watch.placing).toBe(true);
    expect(watch.status()).toMatchObject({ notifications: "placing", reasons: [] });
    expect(watch.status().pendingFolders).toBeGreaterThan(0);
    // A skill written now, in a folder whose watch may not be placed yet, is seen by the next
    // call: while placing, every call looks (the kept result would not have it).
    writeSkill(skills, "written-while-placing");
    expect(names(catalog)).toContain("written-while-placing");
    const runs = catalog.discoveryRuns;
    names(catalog);
    expect(catalog.discoveryRuns).toBe(runs + 1);

    const revision = catalog.revision.value;
    await watch.ready;
    expect(watch.placing).toBe(false);
    expect(watch.status()).toMatchObject({ notifications: "complete", pendingFolders: 0 });
    // The last watch placed moved the revision: the next call looks once more, then not again.
    expect(catalog.revision.value).toBeGreaterThan(revision);
    const settled = catalog.discoveryRuns;
    const result = catalog.discover();
    expect(catalog.discoveryRuns).toBe(settled + 1);
    expect(catalog.discover()).toBe(result);
    expect(catalog.discoveryRuns).toBe(settled + 1);

    // And from then on a change reaches the next call by its notification.
    writeSkill(join(skills, "group"), "nested-late");
    await eventually("the nested skill", () => names(catalog).includes("nested-late"));
  });

  it("the re-check waits the longer interval once the last watch is placed", async () => {
    const { catalog } = catalogOf(4);
    const { watch } = startWatch(catalog, { watchesPerSlice: 1, intervalMs: 60_000 });
    expect(watch.status()).toMatchObject({ notifications: "placing", recheckMs: 60_000 });
    await watch.ready;
    expect(watch.status()).toMatchObject({ notifications: "complete", recheckMs: 600_000 });
  });

  it("the folder cap reached while placing makes the watch incomplete", async () => {
    const { catalog } = catalogOf(4);
    const incomplete: string[] = [];
    const { watch } = startWatch(catalog, {
      watchesPerSlice: 1,
      maxWatchedFolders: 3,
      onIncomplete: (reason) => incomplete.push(reason),
    });
    await watch.ready;
    expect(incomplete).toEqual(["more than 3 folders to watch"]);
    expect(watch.status().notifications).toBe("incomplete");
    expect(watch.placing).toBe(false);
  });
});

describe("no hashing to start: a skill's first version is its file stamps", () => {
  // A clock 10 s ahead puts every file outside the racy window, as on a server started long
  // after its skills were written.
  const later = () => Date.now() + 10_000;

  it("a settled skill's first move is reported once, even when the content came back the same", async () => {
    const { folders, catalog } = catalogOf(2);
    const { watch } = startWatch(catalog, { notifications: false, now: later });
    await watch.ready;
    const script = join(folders[0] ?? "", "scripts", "run.py");
    const moved = new Date(Date.now() + 60_000);
    utimesSync(script, moved, moved);
    // No hash was taken to start, so the moved stamps count as a change, once.
    expect(watch.check()).toEqual({ added: [], removed: [], changed: ["skill-0"] });
    // From then on the skill is known by its hash: another touch is not a change, an edit is.
    const again = new Date(Date.now() + 120_000);
    utimesSync(script, again, again);
    expect(watch.check()).toBeUndefined();
    writeFileSync(script, "print(3)\n");
    expect(watch.check()).toEqual({ added: [], removed: [], changed: ["skill-0"] });
  });

  it("the re-check reaching a skill before its first stamp records it, reporting nothing", () => {
    const { catalog } = catalogOf(3);
    const { watch } = startWatch(catalog, { notifications: false, now: later, watchesPerSlice: 1 });
    // Only one skill was stamped in the first slice; the re-check stamps the rest.
    expect(watch.check()).toBeUndefined();
    expect(watch.check()).toBeUndefined();
  });
});

describe("first versions and notifications (skill-signatures.ts)", () => {
  const later = () => Date.now() + 10_000;

  it("a notification into a skill not stamped yet reports it as changed, and only it", () => {
    const { folders, catalog } = catalogOf(3);
    const skills = catalog.discover().skills;
    const signatures = new SkillSignatures(later);
    expect(signatures.look(skills, "all")).toBeUndefined();
    // Its first version was never stamped: what changed cannot be known, so it counts as changed.
    const path = join(folders[1] ?? "", "scripts", "run.py");
    expect(signatures.look(skills, new Set([path]))).toEqual({
      added: [],
      removed: [],
      changed: ["skill-1"],
    });
    // Now hashed: the same notification again, with nothing changed, is no change.
    expect(signatures.look(skills, new Set([path]))).toBeUndefined();
  });

  it("once stamped, a notification whose folder's stamps did not move reports nothing", () => {
    const { folders, catalog } = catalogOf(3);
    const skills = catalog.discover().skills;
    const signatures = new SkillSignatures(later);
    signatures.look(skills, "all");
    expect(signatures.stampSome(2)).toBe(1);
    expect(signatures.stampSome(2)).toBe(0);
    const path = join(folders[1] ?? "", "scripts", "run.py");
    expect(signatures.look(skills, new Set([path]))).toBeUndefined();
    writeFileSync(path, "print(2)\n");
    expect(signatures.look(skills, new Set([path]))).toEqual({
      added: [],
      removed: [],
      changed: ["skill-1"],
    });
  });
});
