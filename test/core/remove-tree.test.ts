import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import { makeTree } from "../helpers/skill-tree.js";

/** What each case lays out under `root/target`, and what must still exist afterwards. */
interface Case {
  readonly name: string;
  readonly build: (root: string, target: string) => void;
  readonly kept: readonly string[];
}

const cases: readonly Case[] = [
  { name: "nothing there", build: () => undefined, kept: [] },
  { name: "a single file", build: (_root, target) => writeFileSync(target, "x"), kept: [] },
  {
    name: "a nested tree",
    build: (_root, target) => {
      mkdirSync(join(target, "a", "b"), { recursive: true });
      writeFileSync(join(target, "a", "b", "file"), "x");
    },
    kept: [],
  },
  {
    name: "read-only folders (a snapshot's 0555)",
    build: (_root, target) => {
      mkdirSync(join(target, "scripts"), { recursive: true });
      writeFileSync(join(target, "scripts", "run.sh"), "x");
      chmodSync(join(target, "scripts"), 0o555);
      chmodSync(target, 0o555);
    },
    kept: [],
  },
  {
    name: "a link inside to a folder outside: the link goes, the outside stays",
    build: (root, target) => {
      mkdirSync(join(root, "outside"));
      writeFileSync(join(root, "outside", "keep"), "x");
      mkdirSync(target);
      symlinkSync(join(root, "outside"), join(target, "link"));
    },
    kept: ["outside", "outside/keep"],
  },
  {
    name: "the path itself is a link to a folder: only the link goes",
    build: (root, target) => {
      mkdirSync(join(root, "outside"));
      writeFileSync(join(root, "outside", "keep"), "x");
      symlinkSync(join(root, "outside"), target);
    },
    kept: ["outside", "outside/keep"],
  },
];

describe("removeTree: one rule", () => {
  it.each(cases)("$name", ({ build, kept }) => {
    const root = makeTree("skillgate-remove-");
    const target = join(root, "target");
    build(root, target);
    removeTree(target);
    expect(existsSync(target)).toBe(false);
    for (const path of kept) expect(existsSync(join(root, path)), path).toBe(true);
    expect(readdirSync(root).sort()).toEqual(kept.length > 0 ? ["outside"] : []);
  });

  it("throws any other error (a path through a file is ENOTDIR)", () => {
    const root = makeTree("skillgate-remove-");
    writeFileSync(join(root, "file"), "x");
    expect(() => removeTree(join(root, "file", "below"))).toThrow(
      expect.objectContaining({ code: "ENOTDIR" }),
    );
  });
});
