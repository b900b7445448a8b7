import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";
import { skillMd } from "../store/store-helpers.js";

describe("the managed store as a catalog source", () => {
  it("offers the store's enabled skills, and decides `disabled` for the others", async () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const skillgate = createSkillgate({ ...folders, builtins: false, roots: [] });
    const store = await skillgate.openStore();
    const offered = await store.create("offered", { "SKILL.md": skillMd("offered") }, { enabled: true });
    await store.create("waiting", { "SKILL.md": skillMd("waiting") });
    const result = skillgate.catalog.discover();
    expect(result.skills.map((skill) => [skill.name, skill.source])).toEqual([["offered", "store"]]);
    const waiting = result.decisions.find((decision) => decision.name === "waiting");
    expect(waiting).toMatchObject({ decision: "disabled", source: "store" });
    expect(waiting?.reasons.map((reason) => reason.code)).toEqual(["disabled_in_store"]);
    expect(offered.enabled).toBe(true);

    await store.disable("offered");
    expect(skillgate.catalog.discover().skills).toEqual([]);
    const { hash } = await store.get("waiting");
    await store.enable("waiting", { hash });
    expect(skillgate.catalog.discover().skills.map((skill) => skill.name)).toEqual(["waiting"]);
  });

  it("sits above learned skills and below the config folder", async () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const skillgate = createSkillgate({ ...folders, builtins: false, roots: [] });
    const store = await skillgate.openStore();
    await store.create("shared", { "SKILL.md": skillMd("shared") }, { enabled: true });
    writeSkill(join(folders.data, "learned", "skills"), "shared");
    expect(skillgate.catalog.discover().skills.map((skill) => skill.source)).toEqual(["store"]);
    writeSkill(join(folders.config, "skills"), "shared");
    const result = skillgate.catalog.discover();
    expect(result.skills.map((skill) => skill.source)).toEqual(["config"]);
    expect(
      result.decisions
        .filter((decision) => decision.name === "shared")
        .map((decision) => [decision.source, decision.decision]),
    ).toEqual([
      ["learned", "shadowed"],
      ["store", "shadowed"],
      ["config", "registered"],
    ]);
  });

  it("listing skills never creates the store", () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const skillgate = createSkillgate({ ...folders, builtins: false, roots: [] });
    skillgate.catalog.discover();
    expect(existsSync(skillgate.storeFolder)).toBe(false);
  });

  it("without the store, store skills are not seen", async () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const withStore = createSkillgate({ ...folders, builtins: false, roots: [] });
    await (await withStore.openStore()).create(
      "offered",
      { "SKILL.md": skillMd("offered") },
      { enabled: true },
    );
    const withoutStore = createSkillgate({ ...folders, builtins: false, roots: [], useStore: false });
    expect(withoutStore.catalog.discover().skills).toEqual([]);
  });
});
