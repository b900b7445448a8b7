import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EnvironmentStore } from "../../../src/runners/environments/environment-store.js";
import { runnerTree } from "../helpers.js";

const HASHES = ["a", "b", "c"].map((letter) => letter.repeat(64));

/** Commits a finished environment of `hash` holding one Python file, as a build would. */
function commitOne(store: EnvironmentStore, hash: string) {
  const staging = store.staging(hash);
  writeFileSync(join(staging, "python", "module.py"), "VALUE = 1\n");
  return store.commit(staging, hash, { python: ["module"], node: [] });
}

describe("EnvironmentStore", () => {
  it("renames a sealed build into place: read-only, with its manifest; nothing of the build is left beside it", () => {
    const tree = runnerTree();
    const store = new EnvironmentStore({ dataFolder: tree.data });
    const hash = HASHES[0] as string;
    expect(store.find(hash)).toBeUndefined();
    const environment = commitOne(store, hash);
    expect(environment).toMatchObject({
      folder: join(store.root, hash),
      hash,
      python: join(store.root, hash, "python"),
    });
    expect(store.find(hash)?.folder).toBe(environment.folder);
    expect(statSync(join(environment.folder, "python", "module.py")).mode & 0o777).toBe(0o444);
    expect(statSync(join(environment.folder, "python")).mode & 0o777).toBe(0o555);
    expect(readdirSync(store.root)).toEqual([hash]);
  });

  it("a build still in its temporary folder is no environment", () => {
    const tree = runnerTree();
    const store = new EnvironmentStore({ dataFolder: tree.data });
    const hash = HASHES[0] as string;
    store.staging(hash);
    expect(store.find(hash)).toBeUndefined();
    expect(store.hashes()).toEqual([]);
  });

  it("keeps the `keep` most recently used and removes the rest, never one in use by this process", () => {
    const tree = runnerTree();
    const store = new EnvironmentStore({ dataFolder: tree.data, keep: 1 });
    const [first, second, third] = HASHES as [string, string, string];
    commitOne(store, first);
    utimesSync(join(store.root, first), new Date(1_000_000), new Date(1_000_000));
    store.acquire(first);
    commitOne(store, second);
    // The first is older, but in use: kept.
    expect(store.hashes().sort()).toEqual([first, second]);
    store.release(first);
    utimesSync(join(store.root, second), new Date(2_000_000), new Date(2_000_000));
    commitOne(store, third);
    expect(store.hashes()).toEqual([third]);
    expect(existsSync(join(store.root, first))).toBe(false);
  });

  it("a failed build leaves only its log in failed/", () => {
    const tree = runnerTree();
    const store = new EnvironmentStore({ dataFolder: tree.data });
    const hash = HASHES[1] as string;
    const staging = store.staging(hash);
    const log = store.discardFailed(staging, hash, "pip said no\n");
    expect(existsSync(staging)).toBe(false);
    expect(log).toBe(join(store.root, "failed", `${hash}.log`));
    expect(store.hashes()).toEqual([]);
  });
});
