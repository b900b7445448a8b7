import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillDiscovery } from "../../src/catalog/discover.js";
import { STORE_INTERNAL_FOLDERS } from "../../src/catalog/sources.js";
import { PLANS_FOLDER } from "../../src/store/edits/plan-files.js";
import { STAGING_FOLDER, TRASH_FOLDER } from "../../src/store/journal.js";
import { LOCK_NAME } from "../../src/store/lock.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** A home laid out as openai/skills and Codex lay theirs out, plus a store with its internal folders. */
function home() {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const user = join(folders.home, ".agents", "skills");
  writeSkill(user, ".curated/gh-fix-ci");
  writeSkill(user, ".experimental/notion-helper");
  writeSkill(user, ".system/skill-creator");
  writeSkill(user, ".git/objects/not-a-skill");
  writeSkill(user, "plain");
  const store = join(folders.data, "skills");
  writeSkill(store, "stored");
  writeSkill(store, ".staging/123-abcdef012345");
  writeSkill(store, ".trash/stored-123-abcdef012345");
  writeSkill(store, ".unusual/kept");
  return { folders, user, store };
}

describe("hidden folders", () => {
  it("are searched, except .git and the store's internal folders, which are counted", () => {
    const { folders, user, store } = home();
    const result = new SkillDiscovery().discover({
      folders,
      builtins: false,
      store: { folder: store, enabledNames: () => new Set(["stored", "kept"]) },
    });
    expect(result.skills.map((skill) => skill.name)).toEqual([
      "gh-fix-ci",
      "kept",
      "notion-helper",
      "plain",
      "skill-creator",
      "stored",
    ]);
    const report = (folder: string) => result.sources.find((source) => source.folder === folder);
    expect(report(user)?.notSearched.skippedFolders).toEqual({ ".git": 1 });
    expect(report(store)?.notSearched.skippedFolders).toEqual({ ".staging": 1, ".trash": 1 });
    expect(result.diagnostics).toEqual([]);
  });

  it("the store's internal folders are the store's own names", () => {
    expect([...STORE_INTERNAL_FOLDERS].sort()).toEqual(
      [STAGING_FOLDER, TRASH_FOLDER, PLANS_FOLDER, LOCK_NAME].sort(),
    );
  });
});
