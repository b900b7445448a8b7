import { renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DiscoveryResult, SkillDiscovery } from "../../src/catalog/discover.js";
import { isolatedFolders, makeTree, skillMarkdown, writeSkill } from "../helpers/skill-tree.js";

/**
 * The repeat cache: a second discover() on the same SkillDiscovery reuses parsed SKILL.md
 * files that did not change, and notices every change: an edit (also one that keeps the
 * size), a removal, an addition, and a file or folder replaced by a link.
 */

/**
 * `late` reads as if a minute had passed since the files were written, so the cache may
 * trust their signatures at once (see RACY_WINDOW_MS).
 */
function setup(clock: "late" | "real" = "late") {
  const tree = makeTree();
  const skills = join(tree, "project", ".agents", "skills");
  writeSkill(skills, "alpha", { frontMatter: { name: "alpha", description: "First version." } });
  writeSkill(skills, "beta");
  const discovery = new SkillDiscovery(clock === "late" ? { now: () => Date.now() + 60_000 } : {});
  const run = (): DiscoveryResult =>
    discovery.discover({ folders: isolatedFolders(tree), roots: [join(tree, "project")], builtins: false });
  return { tree, skills, run };
}

const summary = (result: DiscoveryResult) =>
  result.decisions.map((decision) => ({
    name: decision.name,
    decision: decision.decision,
    description: decision.skill?.description,
    reasons: decision.reasons.map((reason) => reason.code),
  }));

describe("SkillDiscovery repeat cache", () => {
  it("a repeat with nothing changed returns equal decisions and reuses the loaded skills", () => {
    const { run } = setup();
    const first = run();
    const second = run();
    expect(second.decisions).toEqual(first.decisions);
    expect(second.skills).toEqual(first.skills);
    expect(second.sources).toEqual(first.sources);
    // Reused, not parsed again.
    expect(second.skills[0]).toBe(first.skills[0]);
  });

  it("a file changed just before it was read is read again on the next run (racy file rule)", () => {
    const { run } = setup("real");
    const first = run();
    const second = run();
    // Just written: a same-size rewrite within one timestamp tick could keep the signature.
    expect(second.skills[0]).not.toBe(first.skills[0]);
    expect(second.skills[0]?.description).toBe("First version.");
  });

  it("a repeat does not share mutable decision state with the one before", () => {
    const { run } = setup();
    const first = run();
    const reasonsBefore = JSON.stringify(first.decisions);
    run();
    run();
    expect(JSON.stringify(first.decisions)).toBe(reasonsBefore);
  });

  it("notices an edit that changes the size", () => {
    const { skills, run } = setup();
    expect(run().skills[0]?.description).toBe("First version.");
    writeSkill(skills, "alpha", { frontMatter: { name: "alpha", description: "A longer second version." } });
    expect(run().skills[0]?.description).toBe("A longer second version.");
  });

  it("notices an edit that keeps the size, made right after the first read", () => {
    const { skills, run } = setup();
    expect(run().skills[0]?.description).toBe("First version.");
    const file = join(skills, "alpha", "SKILL.md");
    const next = skillMarkdown("alpha", { frontMatter: { name: "alpha", description: "Other version." } });
    expect(next.length).toBe(
      skillMarkdown("alpha", { frontMatter: { name: "alpha", description: "First version." } }).length,
    );
    writeFileSync(file, next);
    expect(run().skills[0]?.description).toBe("Other version.");
  });

  it("notices an edit that keeps the size and sets the modification time back", () => {
    const { skills, run } = setup();
    const file = join(skills, "alpha", "SKILL.md");
    // A whole second, so setting it again gives the same modification time exactly.
    const stamp = 1_700_000_000;
    utimesSync(file, stamp, stamp);
    expect(run().skills[0]?.description).toBe("First version.");
    writeFileSync(
      file,
      skillMarkdown("alpha", { frontMatter: { name: "alpha", description: "Other version." } }),
    );
    utimesSync(file, stamp, stamp);
    expect(statSync(file).mtimeMs).toBe(stamp * 1000);
    expect(run().skills[0]?.description).toBe("Other version.");
  });

  it("notices a skill removed and a skill added", () => {
    const { skills, run } = setup();
    expect(run().skills.map((skill) => skill.name)).toEqual(["alpha", "beta"]);
    rmSync(join(skills, "beta"), { recursive: true });
    writeSkill(skills, "gamma");
    expect(run().skills.map((skill) => skill.name)).toEqual(["alpha", "gamma"]);
    rmSync(join(skills, "alpha", "SKILL.md"));
    expect(summary(run()).map((decision) => decision.name)).toEqual(["gamma"]);
  });

  it("notices a skill that becomes invalid and one that is fixed", () => {
    const { skills, run } = setup();
    run();
    writeSkill(skills, "alpha", { frontMatter: { name: "alpha" } });
    expect(summary(run())[0]).toMatchObject({
      name: "alpha",
      decision: "rejected",
      reasons: ["missing_description"],
    });
    writeSkill(skills, "alpha", { frontMatter: { name: "alpha", description: "Fixed." } });
    expect(summary(run())[0]).toMatchObject({ name: "alpha", decision: "registered", description: "Fixed." });
  });

  it("notices a SKILL.md replaced by a symlink", () => {
    const { tree, skills, run } = setup();
    expect(run().skills.map((skill) => skill.name)).toEqual(["alpha", "beta"]);
    const outside = join(tree, "outside.md");
    writeFileSync(
      outside,
      skillMarkdown("alpha", { frontMatter: { name: "alpha", description: "Through a link." } }),
    );
    rmSync(join(skills, "alpha", "SKILL.md"));
    symlinkSync(outside, join(skills, "alpha", "SKILL.md"));
    const result = run();
    expect(result.skills.map((skill) => skill.name)).toEqual(["beta"]);
    expect(summary(result)[0]).toMatchObject({
      name: "alpha",
      decision: "rejected",
      reasons: ["symlink_not_allowed"],
    });
  });

  it("notices a skill folder replaced by a symlinked folder that escapes the roots", () => {
    const { skills, run } = setup();
    run();
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeSkill(elsewhere, "alpha", { frontMatter: { name: "alpha", description: "Escaped." } });
    renameSync(join(skills, "alpha"), join(elsewhere, "old-alpha"));
    symlinkSync(join(elsewhere, "alpha"), join(skills, "alpha"));
    const result = run();
    expect(result.skills.map((skill) => skill.name)).toEqual(["beta"]);
    expect(summary(result)[0]).toMatchObject({
      name: "alpha",
      decision: "rejected",
      reasons: ["path_not_allowed"],
    });
  });

  it("notices a skill folder replaced by a symlinked folder inside the root", () => {
    const { skills, run } = setup();
    run();
    writeSkill(join(skills, ".versions"), "alpha", {
      frontMatter: { name: "alpha", description: "Linked version." },
    });
    rmSync(join(skills, "alpha"), { recursive: true });
    symlinkSync(join(skills, ".versions", "alpha"), join(skills, "alpha"));
    expect(run().skills.map((skill) => [skill.name, skill.description])).toEqual([
      ["alpha", "Linked version."],
      ["beta", "Skill beta."],
    ]);
  });

  it("a second SkillDiscovery starts cold and agrees with the warm one", () => {
    const { tree, skills, run } = setup();
    run();
    writeSkill(skills, "delta");
    const warm = run();
    const cold = new SkillDiscovery().discover({
      folders: isolatedFolders(tree),
      roots: [join(tree, "project")],
      builtins: false,
    });
    expect(summary(cold)).toEqual(summary(warm));
  });
});
