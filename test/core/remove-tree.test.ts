import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import { makeTree } from "../helpers/skill-tree.js";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

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

  // Root ignores folder modes, so the read-only rows above pass for root without the retry.
  // Here the tree belongs to an ordinary user, who removes it as that user.
  it("an ordinary user removes its own read-only tree (the retry that makes folders writable)", () => {
    const root = makeTree("skillgate-remove-");
    const target = join(root, "target");
    mkdirSync(join(target, "scripts"), { recursive: true });
    writeFileSync(join(target, "scripts", "run.sh"), "x");
    const asRoot = process.getuid?.() === 0;
    const user = 65534;
    if (asRoot) {
      for (const path of [root, target, join(target, "scripts"), join(target, "scripts", "run.sh")])
        chownSync(path, user, user);
    }
    chmodSync(join(target, "scripts"), 0o555);
    chmodSync(target, 0o555);
    const child = fileURLToPath(new URL("./children/remove-tree.ts", import.meta.url));
    const command = asRoot
      ? ["setpriv", [`--reuid=${user}`, `--regid=${user}`, "--clear-groups", process.execPath]]
      : [process.execPath, []];
    const run = spawnSync(
      command[0] as string,
      [...(command[1] as string[]), "--import", "tsx", child, target],
      { cwd: repositoryRoot, encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  it("throws any other error (a path through a file is ENOTDIR)", () => {
    const root = makeTree("skillgate-remove-");
    writeFileSync(join(root, "file"), "x");
    expect(() => removeTree(join(root, "file", "below"))).toThrow(
      expect.objectContaining({ code: "ENOTDIR" }),
    );
  });
});
