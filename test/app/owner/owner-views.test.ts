import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createOwnerSkill, newSkillFile } from "../../../src/app/owner/create-skill.js";
import { readSkillDetail } from "../../../src/app/owner/skill-detail.js";
import { listSkillSummaries, SkillSummaryCache } from "../../../src/app/owner/skill-summaries.js";
import { createCatalog } from "../../../src/catalog/catalog.js";
import { enabledNamesReader } from "../../../src/store/enabled-names.js";
import { Store } from "../../../src/store/store.js";
import { makeTree } from "../../helpers/skill-tree.js";

/** The owner's views on their own: the skills list, a skill's detail, and create. */

async function setup() {
  const tree = makeTree("skillgate-owner-");
  const data = join(tree, "data");
  const store = await Store.open({ dataFolder: data, checkScripts: false });
  const catalog = createCatalog({
    config: join(tree, "config"),
    data,
    home: join(tree, "home"),
    roots: [join(tree, "project")],
    store: { folder: store.folder, enabledNames: enabledNamesReader(store.folder) },
  });
  return { tree, data, store, catalog };
}

const SKILL = (name: string, metadata: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill.\nmetadata:\n${metadata}---\n\n# ${name}\n`;

describe("listSkillSummaries", () => {
  it("gives author, runner, tier and the lint count per skill, and reads each skill once per hash", async () => {
    const { store } = await setup();
    await store.create("shell-out", {
      "SKILL.md": SKILL("shell-out", "  skillgate.execution: local\n  skillgate.tier: destructive\n"),
      "scripts/run.py": 'import os, sys\nos.system("rm " + sys.argv[1])\n',
    });
    const cache = new SkillSummaryCache();
    const first = await listSkillSummaries(store, cache);
    const summary = first.find((skill) => skill.name === "shell-out");
    expect(summary).toMatchObject({
      author: "owner",
      runner: "local",
      tier: "destructive",
      loads: true,
      enabled: false,
    });
    expect(summary?.reviewWarnings).toBeGreaterThan(0);
    expect(first.some((skill) => skill.source === "builtin" && skill.author === "builtin")).toBe(true);
    expect(cache.size).toBe(first.length);

    // Same hash: the cached facts; a new hash: read again.
    await store.updateFile("shell-out", "scripts/run.py", "print('safe')\n");
    const second = await listSkillSummaries(store, cache);
    expect(second.find((skill) => skill.name === "shell-out")?.reviewWarnings).toBe(0);
    await store.deleteSkill("shell-out");
    await listSkillSummaries(store, cache);
    expect(cache.size).toBe(first.length - 1);
  });

  it("a stored skill whose SKILL.md no longer loads is listed as not loading, without runner or tier", async () => {
    const { store, data } = await setup();
    await store.create("broken", { "SKILL.md": SKILL("broken", "  skillgate.tier: read\n") });
    writeFileSync(join(data, "skills", "broken", "SKILL.md"), "---\nname: broken\n");
    const summary = (await listSkillSummaries(store)).find((skill) => skill.name === "broken");
    expect(summary).toMatchObject({ loads: false });
    expect(summary?.runner).toBeUndefined();
  });
});

describe("readSkillDetail", () => {
  it("shows the decision about this very folder: shadowed when another source holds the name", async () => {
    const { tree, store, catalog } = await setup();
    const created = await store.create("twin", { "SKILL.md": SKILL("twin", "  skillgate.tier: read\n") });
    await store.enable("twin", { hash: created.hash });
    expect((await readSkillDetail(store, catalog, "twin")).decision).toMatchObject({
      decision: "registered",
    });
    const project = join(tree, "project", ".agents", "skills", "twin");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "SKILL.md"), SKILL("twin", "  skillgate.tier: change\n"));
    const detail = await readSkillDetail(store, catalog, "twin");
    expect(detail.decision).toMatchObject({ decision: "shadowed", source: "store" });
    expect(detail.decision?.reasons.map((reason) => reason.code)).toContain("shadowed_by");
    expect(detail.governance?.tier).toBe("read");
  });

  it("refuses as the store does", async () => {
    const { store, catalog } = await setup();
    await expect(readSkillDetail(store, catalog, "Nope")).rejects.toMatchObject({
      code: "invalid_skill_name",
    });
    await expect(readSkillDetail(store, catalog, "nope")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("createOwnerSkill", () => {
  it("writes a SKILL.md from the name and description when the files hold none; keeps one that is given", async () => {
    const { store } = await setup();
    await createOwnerSkill(store, { name: "made", description: 'Says "hi": twice.' });
    const made = await store.get("made");
    expect(made.skillFile).toBe(newSkillFile("made", 'Says "hi": twice.'));
    expect(made.description).toBe('Says "hi": twice.');
    const given = SKILL("given", "  skillgate.tier: read\n");
    const result = await createOwnerSkill(store, {
      name: "given",
      files: { "SKILL.md": given },
      enabled: true,
    });
    expect(result.enabled).toBe(true);
    expect((await store.get("given")).skillFile).toBe(given);
  });
});
