import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillDiscovery } from "../../src/catalog/discover.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/**
 * Discovery reads files through their real paths (links resolved once, not by the system
 * for every file) but reports the paths it walked: a skills folder that is a link, or a
 * linked group inside one, shows its skills under the link, as before.
 */

function linkedConfigSkills() {
  const tree = makeTree();
  const real = join(tree, "real-skills");
  writeSkill(real, "alpha", { body: "Alpha body.\n" });
  writeSkill(join(tree, "elsewhere"), "beta", { body: "Beta body.\n" });
  const folders = isolatedFolders(tree);
  mkdirSync(folders.config, { recursive: true });
  const link = join(folders.config, "skills");
  symlinkSync(real, link, "dir");
  return { tree, real, link, folders };
}

describe("discovery paths through links", () => {
  it("a skills folder that is a link: skills are reported under the link and their bodies read", () => {
    const { link, folders } = linkedConfigSkills();
    const result = new SkillDiscovery().discover({ folders, builtins: false });
    expect(result.skills.map((skill) => skill.name)).toEqual(["alpha"]);
    const [decision] = result.decisions;
    expect(decision?.location).toBe(join(link, "alpha", "SKILL.md"));
    expect(decision?.skill?.where).toBe(join(link, "alpha", "SKILL.md"));
    expect(decision?.skill?.directory).toBe(join(link, "alpha"));
    expect(decision?.skill?.text()).toBe("Alpha body.\n");
  });

  it("linked groups inside the folder are reported under the link's path", () => {
    const { tree, real, link, folders } = linkedConfigSkills();
    // One group leads into another skills folder (allowed), one outside every skills folder.
    const userSkills = join(folders.home, ".agents", "skills");
    writeSkill(join(userSkills, "group"), "gamma");
    symlinkSync(join(userSkills, "group"), join(real, "allowed-group"), "dir");
    symlinkSync(join(tree, "elsewhere"), join(real, "outside-group"), "dir");
    const result = new SkillDiscovery().discover({ folders, builtins: false });
    const fromConfig = result.decisions.filter((decision) => decision.source === "config");
    expect(fromConfig.map((decision) => [decision.name, decision.decision, decision.location])).toEqual([
      ["gamma", "shadowed", join(link, "allowed-group", "gamma", "SKILL.md")],
      ["alpha", "registered", join(link, "alpha", "SKILL.md")],
      ["outside-group", "rejected", join(link, "outside-group", "SKILL.md")],
    ]);
    const gamma = fromConfig[0]?.skill;
    expect(gamma?.directory).toBe(join(link, "allowed-group", "gamma"));
    expect(gamma?.text()).toBe("Instructions for gamma.\n");
  });

  it("a repeat reads nothing again, and a file changed behind the link is noticed", () => {
    const { real, link, folders } = linkedConfigSkills();
    const discovery = new SkillDiscovery({ now: () => Date.now() + 60_000 });
    const first = discovery.discover({ folders, builtins: false });
    const second = discovery.discover({ folders, builtins: false });
    expect(second.skills[0]).toBe(first.skills[0]);
    writeFileSync(
      join(real, "alpha", "SKILL.md"),
      "---\nname: alpha\ndescription: Changed behind the link.\n---\nNew body.\n",
    );
    const third = discovery.discover({ folders, builtins: false });
    expect(third.skills[0]?.description).toBe("Changed behind the link.");
    expect(third.skills[0]?.where).toBe(join(link, "alpha", "SKILL.md"));
    rmSync(join(real, "alpha", "SKILL.md"));
    expect(discovery.discover({ folders, builtins: false }).skills).toEqual([]);
  });
});
