import { describe, expect, it } from "vitest";
import {
  lockForFolder,
  pipCommand,
  pipMissingPackage,
  wheellessInFolder,
} from "../../../src/runners/environments/build-script.js";

describe("the build's commands", () => {
  it("pip installs wheels only, offline from the folder or from the index URL, never with a cache", () => {
    const offline = pipCommand("/usr/bin/python3", { kind: "folder", folder: "/srv/wheels" });
    expect(offline).toContain("--only-binary=:all:");
    expect(offline).toContain("--no-index --find-links /packages/index/python");
    expect(offline).toContain("--no-cache-dir");
    const online = pipCommand("/usr/bin/python3", {
      kind: "url",
      url: "https://pypi.org/simple",
      hosts: ["pypi.org"],
    });
    expect(online).toContain("--index-url 'https://pypi.org/simple'");
    expect(online).not.toContain("--no-index");
  });

  it("points every locked package at its tarball (scoped names as npm pack names them), keeping integrity", () => {
    const lock = JSON.stringify({
      packages: {
        "": { name: "x" },
        "node_modules/left-pad": {
          version: "1.3.0",
          resolved: "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
          integrity: "sha512-a",
        },
        "node_modules/@scope/thing": { version: "2.0.0", integrity: "sha512-b" },
        "node_modules/left-pad/node_modules/dep": { version: "0.1.0", integrity: "sha512-c" },
      },
    });
    const rewritten = lockForFolder(
      lock,
      new Set(["left-pad-1.3.0.tgz", "scope-thing-2.0.0.tgz", "dep-0.1.0.tgz"]),
    );
    expect(rewritten.ok).toBe(true);
    if (!rewritten.ok) return;
    const packages = JSON.parse(rewritten.lock).packages;
    expect(packages["node_modules/left-pad"]).toEqual({
      version: "1.3.0",
      resolved: "file:/packages/index/node/left-pad-1.3.0.tgz",
      integrity: "sha512-a",
    });
    expect(packages["node_modules/@scope/thing"].resolved).toBe(
      "file:/packages/index/node/scope-thing-2.0.0.tgz",
    );
    expect(packages["node_modules/left-pad/node_modules/dep"].resolved).toBe(
      "file:/packages/index/node/dep-0.1.0.tgz",
    );
    expect(lockForFolder(lock, new Set(["left-pad-1.3.0.tgz"]))).toEqual({
      ok: false,
      missing: "@scope/thing@2.0.0",
    });
  });

  it("names direct requirements a folder holds only as source archives, and reads pip's not-found line", () => {
    const names = new Set([
      "Tiny_Pkg-1.0-py3-none-any.whl",
      "sourceonly-1.0.0.tar.gz",
      "both-1.0.tar.gz",
      "both-1.0-py3-none-any.whl",
    ]);
    expect(wheellessInFolder(names, ["tiny-pkg", "sourceonly", "both", "absent"])).toEqual(["sourceonly"]);
    expect(pipMissingPackage("ERROR: No matching distribution found for pypdf>=4\n")).toBe("pypdf>=4");
  });
});
