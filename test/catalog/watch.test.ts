import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import type {
  CatalogChange,
  CatalogWatch,
  CatalogWatchOptions,
  WatchFolder,
} from "../../src/catalog/watch.js";
import { eventually } from "../helpers/eventually.js";
import { isolatedFolders, makeTree, skillMarkdown, writeSkill } from "../helpers/skill-tree.js";

const running: CatalogWatch[] = [];
afterEach(() => {
  for (const watch of running.splice(0)) watch.stop();
});

/** A catalog over one project root in a fresh tree, and its skills folder. */
function projectCatalog() {
  const tree = makeTree("skillgate-watch-");
  const folders = isolatedFolders(tree);
  const skills = join(tree, "project", ".agents", "skills");
  const catalog = createCatalog({ ...folders, roots: [join(tree, "project")], builtins: false });
  return { tree, folders, skills, catalog };
}

/** A watch whose re-check timer never fires during a test, told about changes and errors. */
function startWatch(catalog: ReturnType<typeof createCatalog>, options: Partial<CatalogWatchOptions> = {}) {
  const changes: CatalogChange[] = [];
  const errors: unknown[] = [];
  const incomplete: string[] = [];
  const watch = catalog.watch({
    intervalMs: 3_600_000,
    onChange: (change) => changes.push(change),
    onError: (error) => errors.push(error),
    onIncomplete: (reason) => incomplete.push(reason),
    settleMs: 5,
    ...options,
  });
  running.push(watch);
  return { watch, changes, errors, incomplete };
}

const names = (catalog: ReturnType<typeof createCatalog>) =>
  catalog.discover().skills.map((skill) => skill.name);

describe("the full re-check (the safety net), with notifications off", () => {
  it("sets a baseline without reporting it, then reports nothing while nothing changes", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch, changes } = startWatch(catalog, { notifications: false });
    expect(watch.check()).toBeUndefined();
    expect(watch.check()).toBeUndefined();
    expect(changes).toEqual([]);
    expect(watch.status().notifications).toBe("off");
  });

  it("finds a skill written on disk, moves the revision, and the next call sees it", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch } = startWatch(catalog, { notifications: false });
    expect(names(catalog)).toEqual(["alpha"]);
    writeSkill(skills, "beta");
    // Without notifications nothing moved the revision: the kept result is served.
    expect(names(catalog)).toEqual(["alpha"]);
    const before = catalog.revision.value;
    expect(watch.check()).toEqual({ added: ["beta"], removed: [], changed: [] });
    expect(catalog.revision.value).toBeGreaterThan(before);
    expect(names(catalog)).toEqual(["alpha", "beta"]);
    rmSync(join(skills, "alpha"), { recursive: true });
    expect(watch.check()).toEqual({ added: [], removed: ["alpha"], changed: [] });
    expect(names(catalog)).toEqual(["beta"]);
  });

  it("reports a changed script (not only SKILL.md) as a changed hash", () => {
    const { skills, catalog } = projectCatalog();
    const folder = writeSkill(skills, "alpha", { files: { "scripts/run.py": "print(1)\n" } });
    const { watch } = startWatch(catalog, { notifications: false });
    writeFileSync(join(folder, "scripts", "run.py"), "print(2)\n");
    expect(watch.check()).toEqual({ added: [], removed: [], changed: ["alpha"] });
    writeFileSync(join(folder, "references.md"), "more\n");
    expect(watch.check()).toEqual({ added: [], removed: [], changed: ["alpha"] });
    expect(watch.check()).toBeUndefined();
  });

  it("does not report a file touched without a change of content", () => {
    const { skills, catalog } = projectCatalog();
    const folder = writeSkill(skills, "alpha", { files: { "scripts/run.py": "print(1)\n" } });
    const { watch } = startWatch(catalog, { notifications: false });
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(folder, "scripts", "run.py"), later, later);
    expect(watch.check()).toBeUndefined();
  });

  it("reports a look that failed (a malformed configuration) and goes on watching", () => {
    const { skills, folders, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch, errors } = startWatch(catalog, { notifications: false });
    mkdirSync(folders.config, { recursive: true });
    writeFileSync(join(folders.config, "config.yaml"), "skills: [not, a, mapping\n");
    expect(watch.check()).toBeUndefined();
    expect(errors).toHaveLength(1);
    writeFileSync(join(folders.config, "config.yaml"), "{}\n");
    writeSkill(skills, "beta");
    expect(watch.check()).toEqual({ added: ["beta"], removed: [], changed: [] });
  });

  it("re-checks on its own timer, and never again once stopped", async () => {
    const { skills, catalog } = projectCatalog();
    const seen: CatalogChange[] = [];
    const { watch } = startWatch(catalog, {
      notifications: false,
      intervalMs: 20,
      onChange: (change) => seen.push(change),
    });
    writeSkill(skills, "gamma");
    await eventually("the re-check", () => seen.length > 0);
    expect(seen[0]).toEqual({ added: ["gamma"], removed: [], changed: [] });
    watch.stop();
    const runs = catalog.discoveryRuns;
    writeSkill(skills, "delta");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(catalog.discoveryRuns).toBe(runs);
  });
});

describe("file-system notifications", () => {
  it("an unchanged tree costs no walk per call: discover() checks the revision", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    startWatch(catalog);
    const first = catalog.discover();
    const runs = catalog.discoveryRuns;
    for (let call = 0; call < 20; call += 1) expect(catalog.discover()).toBe(first);
    expect(catalog.discoveryRuns).toBe(runs);
  });

  it("without a watch, every call walks (short-lived processes keep their behaviour)", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const runs = catalog.discoveryRuns;
    catalog.discover();
    catalog.discover();
    expect(catalog.discoveryRuns).toBe(runs + 2);
  });

  it("a SKILL.md added, edited and removed on disk is seen after its notification", async () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { changes, watch } = startWatch(catalog);
    expect(watch.status().notifications).toBe("complete");
    writeSkill(skills, "beta");
    await eventually("beta to appear", () => names(catalog).includes("beta"));
    await eventually("beta's change", () => changes.some((change) => change.added.includes("beta")));

    writeFileSync(
      join(skills, "beta", "SKILL.md"),
      skillMarkdown("beta", { frontMatter: { name: "beta", description: "Edited on disk." } }),
    );
    const describe = () => catalog.discover().skills.find((skill) => skill.name === "beta")?.description;
    await eventually("the edit", () => describe() === "Edited on disk.");

    rmSync(join(skills, "alpha"), { recursive: true });
    await eventually("alpha to go", () => !names(catalog).includes("alpha"));
    await eventually("alpha's change", () => changes.some((change) => change.removed.includes("alpha")));
  });

  it("a skills folder that does not exist yet is seen when it is made", async () => {
    const { tree, catalog } = projectCatalog();
    startWatch(catalog);
    expect(names(catalog)).toEqual([]);
    writeSkill(join(tree, "project", ".agents", "skills"), "late");
    await eventually("the late skill", () => names(catalog).includes("late"));
    // A skill in a folder made after the watch started is seen too.
    writeSkill(join(tree, "project", ".agents", "skills", "group"), "nested");
    await eventually("the nested skill", () => names(catalog).includes("nested"));
  });

  it("a skills folder removed and made again is watched again", async () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    startWatch(catalog);
    expect(names(catalog)).toEqual(["alpha"]);
    rmSync(skills, { recursive: true });
    await eventually("the folder to go", () => names(catalog).length === 0);
    writeSkill(skills, "again");
    await eventually("the new folder's skill", () => names(catalog).includes("again"));
  });

  it("a changed script is announced as changed, touching only that skill", async () => {
    const { skills, catalog } = projectCatalog();
    const folder = writeSkill(skills, "alpha", { files: { "scripts/run.py": "print(1)\n" } });
    writeSkill(skills, "beta");
    const { changes } = startWatch(catalog);
    writeFileSync(join(folder, "scripts", "run.py"), "print(2)\n");
    await eventually("the change", () => changes.length > 0);
    expect(changes[0]).toEqual({ added: [], removed: [], changed: ["alpha"] });
  });

  it("ENOSPC from the watch limit falls back to the re-check and says so", async () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const failing: WatchFolder = () => {
      throw Object.assign(new Error("ENOSPC: System limit for number of file watchers reached"), {
        code: "ENOSPC",
      });
    };
    const { watch, incomplete } = startWatch(catalog, { watchFolder: failing });
    expect(incomplete).toEqual([
      "ENOSPC: the system's inotify watch limit (fs.inotify.max_user_watches) is reached",
    ]);
    expect(watch.status()).toMatchObject({ notifications: "incomplete", recheckMs: 3_600_000 });
    writeSkill(skills, "beta");
    expect(watch.check()).toEqual({ added: ["beta"], removed: [], changed: [] });
    expect(names(catalog)).toEqual(["alpha", "beta"]);
  });

  it("the folder cap makes the watch incomplete instead of watching without end", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha", { files: { "scripts/run.py": "" } });
    const { watch, incomplete } = startWatch(catalog, { maxWatchedFolders: 2 });
    expect(incomplete).toEqual(["more than 2 folders to watch"]);
    expect(watch.status().notifications).toBe("incomplete");
  });

  it("stopping the last watch goes back to a look per call", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch } = startWatch(catalog);
    catalog.discover();
    watch.stop();
    writeSkill(skills, "beta");
    expect(names(catalog)).toEqual(["alpha", "beta"]);
  });
});
