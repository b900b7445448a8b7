import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { type CatalogChange, watchCatalog } from "../../src/catalog/watch.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** A catalog over one project root in a fresh tree, and its skills folder. */
function projectCatalog() {
  const tree = makeTree("skillgate-watch-");
  const skills = join(tree, "project", ".agents", "skills");
  const catalog = createCatalog({
    ...isolatedFolders(tree),
    roots: [join(tree, "project")],
    builtins: false,
  });
  return { tree, skills, catalog };
}

/** A watch whose timer never fires during a test: looks happen through `check()`. */
function manualWatch(discover: Parameters<typeof watchCatalog>[0]) {
  const changes: CatalogChange[] = [];
  const errors: unknown[] = [];
  const watch = watchCatalog(discover, {
    intervalMs: 3_600_000,
    onChange: (change) => changes.push(change),
    onError: (error) => errors.push(error),
  });
  return { watch, changes, errors };
}

describe("watchCatalog", () => {
  it("sets a baseline without reporting it, then reports nothing while nothing changes", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch, changes } = manualWatch(() => catalog.discover());
    expect(watch.check()).toBeUndefined();
    expect(watch.check()).toBeUndefined();
    expect(changes).toEqual([]);
    watch.stop();
  });

  it("reports a skill folder written on disk as added, and its removal as removed", () => {
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch, changes } = manualWatch(() => catalog.discover());
    writeSkill(skills, "beta");
    expect(watch.check()).toEqual({ added: ["beta"], removed: [], changed: [] });
    rmSync(join(skills, "alpha"), { recursive: true });
    expect(watch.check()).toEqual({ added: [], removed: ["alpha"], changed: [] });
    expect(changes).toHaveLength(2);
    watch.stop();
  });

  it("reports a changed script (not only SKILL.md) as a changed hash", () => {
    const { skills, catalog } = projectCatalog();
    const folder = writeSkill(skills, "alpha", { files: { "scripts/run.py": "print(1)\n" } });
    const { watch } = manualWatch(() => catalog.discover());
    writeFileSync(join(folder, "scripts", "run.py"), "print(2)\n");
    expect(watch.check()).toEqual({ added: [], removed: [], changed: ["alpha"] });
    writeFileSync(join(folder, "references.md"), "more\n");
    expect(watch.check()).toEqual({ added: [], removed: [], changed: ["alpha"] });
    expect(watch.check()).toBeUndefined();
    watch.stop();
  });

  it("does not report a file touched without a change of content", () => {
    const { skills, catalog } = projectCatalog();
    const folder = writeSkill(skills, "alpha", { files: { "scripts/run.py": "print(1)\n" } });
    const { watch } = manualWatch(() => catalog.discover());
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(folder, "scripts", "run.py"), later, later);
    expect(watch.check()).toBeUndefined();
    watch.stop();
  });

  it("reports a look that failed and goes on watching", () => {
    let fail = false;
    const { skills, catalog } = projectCatalog();
    writeSkill(skills, "alpha");
    const { watch, errors } = manualWatch(() => {
      if (fail) throw new Error("configuration went bad");
      return catalog.discover();
    });
    fail = true;
    expect(watch.check()).toBeUndefined();
    expect(errors).toHaveLength(1);
    fail = false;
    writeSkill(skills, "beta");
    expect(watch.check()).toEqual({ added: ["beta"], removed: [], changed: [] });
    watch.stop();
  });

  it("looks on its own timer, and never again once stopped", async () => {
    const { skills, catalog } = projectCatalog();
    let looks = 0;
    const seen = new Promise<CatalogChange>((resolve) => {
      const watch = watchCatalog(
        () => {
          looks += 1;
          return catalog.discover();
        },
        {
          intervalMs: 20,
          onChange: (change) => {
            watch.stop();
            resolve(change);
          },
        },
      );
    });
    writeSkill(skills, "gamma");
    expect(await seen).toEqual({ added: ["gamma"], removed: [], changed: [] });
    const stoppedAt = looks;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(looks).toBe(stoppedAt);
  });
});
