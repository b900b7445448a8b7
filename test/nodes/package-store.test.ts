import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/hashing.js";
import { packFolder } from "../../src/nodes/packages/package-builder.js";
import { PackageStore } from "../../src/nodes/packages/package-store.js";
import { makeTree } from "../helpers/skill-tree.js";
import { skillFiles, writeSkill } from "./package-fixtures.js";

function setup() {
  const tree = makeTree("skillgate-package-store-");
  const data = join(tree, "data");
  const folder = join(tree, "skills", "alpha");
  const hash = writeSkill(folder, skillFiles("alpha"));
  return { tree, data, folder, hash, store: new PackageStore({ dataFolder: data }) };
}

describe("PackageStore", () => {
  it("builds a package once per name@hash, atomically, with its SHA-256 and size", async () => {
    const { data, folder, hash, store } = setup();
    const [first, concurrent] = await Promise.all([
      store.ensure({ name: "alpha", hash, folder }),
      store.ensure({ name: "alpha", hash, folder }),
    ]);
    expect(concurrent).toEqual(first);
    expect(first.path).toBe(join(data, "nodes", "packages", `alpha@${hash}.tar.gz`));
    const bytes = readFileSync(first.path);
    expect(first.sha256).toBe(sha256Hex(bytes));
    expect(first.size).toBe(bytes.length);
    expect(bytes.equals(packFolder(folder, hash).bytes)).toBe(true);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    const builtAt = statSync(first.path).mtimeMs;
    await store.ensure({ name: "alpha", hash, folder });
    expect(statSync(first.path).mtimeMs).toBe(builtAt);
    expect(readdirSync(join(data, "nodes", "packages"))).toEqual([`alpha@${hash}.tar.gz`]);
    // Another process on the same data folder reads the kept package and its SHA-256.
    const again = new PackageStore({ dataFolder: data });
    expect(again.get("alpha", hash)).toEqual(first);
    expect(again.list()).toEqual([first]);
  });

  it("serves a package only while the store's hash still matches", async () => {
    const { folder, hash, store } = setup();
    const stored = await store.ensure({ name: "alpha", hash, folder });
    const opened = store.open("alpha", hash, hash);
    expect(opened.package).toEqual(stored);
    expect(sha256Hex(opened.bytes)).toBe(stored.sha256);
    const other = "f".repeat(64);
    expect(() => store.open("alpha", hash, other)).toThrowError(
      expect.objectContaining({ code: "package_stale" }),
    );
    expect(() => store.open("alpha", hash, undefined)).toThrowError(
      expect.objectContaining({ code: "package_not_found" }),
    );
    expect(() => store.open("alpha", other, other)).toThrowError(
      expect.objectContaining({ code: "package_not_found" }),
    );
    expect(() => store.open("../alpha", hash, hash)).toThrowError(
      expect.objectContaining({ code: "package_not_found" }),
    );
  });

  it("refuses to build a folder that moved from the hash, writing nothing", async () => {
    const { data, folder, hash, store } = setup();
    writeFileSync(join(folder, "SKILL.md"), "edited\n");
    await expect(store.ensure({ name: "alpha", hash, folder })).rejects.toMatchObject({
      code: "package_build_failed",
    });
    expect(existsSync(join(data, "nodes", "packages"))).toBe(false);
    await expect(store.ensure({ name: "al/pha", hash, folder })).rejects.toMatchObject({
      code: "package_invalid",
    });
    await expect(store.ensure({ name: "alpha", hash: "abc", folder })).rejects.toMatchObject({
      code: "package_invalid",
    });
  });

  it("prunes every package no manifest lists, and leftover temporary files", async () => {
    const { tree, folder, hash, store } = setup();
    const betaFolder = join(tree, "skills", "beta");
    const betaHash = writeSkill(betaFolder, skillFiles("beta"));
    await store.ensure({ name: "alpha", hash, folder });
    const beta = await store.ensure({ name: "beta", hash: betaHash, folder: betaFolder });
    writeFileSync(join(store.folder, ".tmp-left-over"), "x");
    expect(await store.prune(new Set([`beta@${betaHash}`]))).toEqual([`alpha@${hash}`]);
    expect(readdirSync(store.folder)).toEqual([`beta@${betaHash}.tar.gz`]);
    expect(store.get("alpha", hash)).toBeUndefined();
    expect(store.get("beta", betaHash)).toEqual(beta);
  });
});

describe("PackageStore after a restart", () => {
  it("keeps a kept file that matches the build and replaces one damaged on disk", async () => {
    const { data, folder, hash, store } = setup();
    const stored = await store.ensure({ name: "alpha", hash, folder });
    const good = readFileSync(stored.path);
    const builtAt = statSync(stored.path).mtimeMs;
    const restarted = new PackageStore({ dataFolder: data });
    expect(await restarted.ensure({ name: "alpha", hash, folder })).toEqual(stored);
    expect(statSync(stored.path).mtimeMs).toBe(builtAt);
    const damaged = Buffer.from(good);
    damaged[20] = (damaged[20] ?? 0) ^ 0xff;
    writeFileSync(stored.path, damaged);
    const healed = await new PackageStore({ dataFolder: data }).ensure({ name: "alpha", hash, folder });
    expect(healed).toEqual(stored);
    expect(readFileSync(stored.path).equals(good)).toBe(true);
  });
});
