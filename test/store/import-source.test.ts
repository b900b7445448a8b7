import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_GITHUB_API,
  githubOptionsFromEnvironment,
  importSkillSource,
  importSourceKind,
} from "../../src/store/importers.js";
import { Store } from "../../src/store/store.js";
import { makeTree } from "../helpers/skill-tree.js";
import { SKILL_MD, yazlZip } from "./import/zip-fixtures.js";

/** The import source-kind choice every surface shares (the CLI's `store import`, the server). */

describe("importSourceKind", () => {
  it("tells a GitHub address, a local folder and a zip apart", () => {
    const tree = makeTree();
    mkdirSync(join(tree, "folder"));
    writeFileSync(join(tree, "file.zip"), "");
    expect(importSourceKind("https://github.com/o/r/tree/main/x")).toBe("github");
    expect(importSourceKind("HTTP://github.com/o/r/tree/main/x")).toBe("github");
    expect(importSourceKind(join(tree, "folder"))).toBe("folder");
    expect(importSourceKind(join(tree, "file.zip"))).toBe("zip");
    expect(importSourceKind(join(tree, "missing"))).toBe("zip");
  });
});

describe("importSkillSource", () => {
  it("imports a folder and a zip by their kind, saved disabled", async () => {
    const tree = makeTree();
    const store = await Store.open({ dataFolder: join(tree, "data"), checkScripts: false });
    const folder = join(tree, "folder-skill");
    mkdirSync(folder);
    writeFileSync(join(folder, "SKILL.md"), SKILL_MD.replace("name: demo", "name: from-folder"));
    const copied = await importSkillSource(store, folder);
    expect(copied).toMatchObject({ kind: "folder", name: "from-folder", source: "folder", enabled: false });
    const archive = join(tree, "demo.zip");
    writeFileSync(archive, await yazlZip({ "SKILL.md": SKILL_MD }));
    expect(await importSkillSource(store, archive)).toMatchObject({
      kind: "zip",
      name: "demo",
      source: "zip",
    });
    await expect(importSkillSource(store, "https://example.com/not/github")).rejects.toMatchObject({
      code: "invalid_github_url",
    });
  });
});

describe("githubOptionsFromEnvironment", () => {
  it("reads the API root and the token, with GitHub's own root by default", () => {
    expect(githubOptionsFromEnvironment({})).toEqual({ apiBaseUrl: DEFAULT_GITHUB_API });
    expect(githubOptionsFromEnvironment({ SKILLGATE_GITHUB_API: "", GITHUB_TOKEN: "" })).toEqual({
      apiBaseUrl: DEFAULT_GITHUB_API,
    });
    expect(
      githubOptionsFromEnvironment({ SKILLGATE_GITHUB_API: "http://127.0.0.1:9", GITHUB_TOKEN: "t0ken" }),
    ).toEqual({ apiBaseUrl: "http://127.0.0.1:9", token: "t0ken" });
  });
});
