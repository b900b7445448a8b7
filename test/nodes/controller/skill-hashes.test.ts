import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillHashes } from "../../../src/nodes/controller/skill-hashes.js";
import { hashSkillFolder } from "../../../src/skill/content-hash.js";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";

describe("the controller's skill hashes", () => {
  it("agrees with the content hash, and sees an edit even within the same second", () => {
    const tree = makeTree();
    const folder = writeSkill(tree, "disks");
    let now = Date.now();
    const hashes = new SkillHashes(() => now);
    expect(hashes.hashOf(folder)).toBe(hashSkillFolder(folder).hash);
    // An edit right after the first read: not settled, so read again.
    writeFileSync(join(folder, "notes.md"), "one\n");
    expect(hashes.hashOf(folder)).toBe(hashSkillFolder(folder).hash);
    // A same-size rewrite with the old times put back still moves the change time.
    now += 10_000;
    const kept = hashes.hashOf(folder);
    writeFileSync(join(folder, "notes.md"), "two\n");
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(folder, "notes.md"), past, past);
    now = Date.now() + 10_000;
    const after = hashes.hashOf(folder);
    expect(after).toBe(hashSkillFolder(folder).hash);
    expect(after).not.toBe(kept);
  });

  it("answers undefined for a folder that is gone", () => {
    const hashes = new SkillHashes();
    expect(hashes.hashOf(join(makeTree(), "missing"))).toBeUndefined();
  });
});
