import {
  appendFileSync,
  mkdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareScans,
  describeWorkspaceChanges,
  noChanges,
  scanWorkspace,
  WORKSPACE_SCAN_LIMITS,
} from "../../../src/runners/workspace/changes.js";
import { runnerTree } from "../helpers.js";

function project(): string {
  const folder = join(runnerTree().root, "project");
  mkdirSync(join(folder, "a", "b"), { recursive: true });
  writeFileSync(join(folder, "keep.txt"), "keep\n");
  writeFileSync(join(folder, "a", "edit.txt"), "one\n");
  writeFileSync(join(folder, "a", "b", "gone.txt"), "gone\n");
  return folder;
}

describe("the workspace comparison", () => {
  it("lists created, changed and deleted files and folders; a folder whose names changed is not itself changed", () => {
    const folder = project();
    const before = scanWorkspace(folder);
    appendFileSync(join(folder, "a", "edit.txt"), "two\n");
    unlinkSync(join(folder, "a", "b", "gone.txt"));
    mkdirSync(join(folder, "new"));
    writeFileSync(join(folder, "new", "file.txt"), "x");
    symlinkSync("keep.txt", join(folder, "link"));
    const changes = compareScans(before, scanWorkspace(folder));
    expect(changes).toEqual({
      created: ["link", "new/", "new/file.txt"],
      changed: ["a/edit.txt"],
      deleted: ["a/b/gone.txt"],
      omitted: 0,
      complete: true,
    });
    expect(describeWorkspaceChanges(changes)).toEqual([
      "created: link",
      "created: new/",
      "created: new/file.txt",
      "changed: a/edit.txt",
      "deleted: a/b/gone.txt",
    ]);
  });

  it("sees a rewrite that keeps the size and puts the modification time back (the change time moves)", () => {
    const folder = project();
    const file = join(folder, "keep.txt");
    const before = scanWorkspace(folder);
    writeFileSync(file, "KEEP\n");
    utimesSync(file, new Date(0), new Date(0));
    const stamped = scanWorkspace(folder);
    utimesSync(file, new Date(0), new Date(0));
    expect(compareScans(before, stamped).changed).toEqual(["keep.txt"]);
  });

  it("finds nothing when nothing changed, and a link's new target is a change", () => {
    const folder = project();
    symlinkSync("keep.txt", join(folder, "link"));
    const before = scanWorkspace(folder);
    expect(noChanges(compareScans(before, scanWorkspace(folder)))).toBe(true);
    unlinkSync(join(folder, "link"));
    symlinkSync("a/edit.txt", join(folder, "link"));
    expect(compareScans(before, scanWorkspace(folder)).changed).toEqual(["link"]);
  });

  it("past the entry cap it stops and says so; past the listing cap it counts what it left out", () => {
    const folder = project();
    const limits = { ...WORKSPACE_SCAN_LIMITS, entries: 3, listed: 2 };
    const before = scanWorkspace(folder, limits);
    expect(before.entries.size).toBe(3);
    expect([...before.gaps]).toEqual(["entries"]);
    for (const name of ["n1", "n2", "n3"]) writeFileSync(join(folder, name), name);
    const changes = compareScans(scanWorkspace(folder), scanWorkspace(folder), limits);
    expect(changes.omitted).toBe(0);
    const full = scanWorkspace(folder);
    rmSync(join(folder, "n1"));
    rmSync(join(folder, "n2"));
    rmSync(join(folder, "n3"));
    const listed = compareScans(full, scanWorkspace(folder), limits);
    expect(listed.deleted).toEqual(["n1", "n2"]);
    expect(listed.omitted).toBe(1);
    const capped = compareScans(before, scanWorkspace(folder, limits));
    expect(capped.complete).toBe(false);
    expect(capped.gaps).toEqual(["entries"]);
    expect(describeWorkspaceChanges(capped).at(-1)).toMatch(
      /did not see the whole workspace: over \d+ names/,
    );
  });

  it("does not enter folders past the depth cap, and says so", () => {
    const folder = project();
    const scan = scanWorkspace(folder, { ...WORKSPACE_SCAN_LIMITS, depth: 2 });
    expect([...scan.entries.keys()].sort()).toEqual(["a", "a/b", "a/edit.txt", "keep.txt"]);
    expect([...scan.gaps]).toEqual(["depth"]);
  });

  it("never follows a link out of the workspace", () => {
    const tree = runnerTree();
    const folder = join(tree.root, "project");
    mkdirSync(join(tree.root, "outside"), { recursive: true });
    mkdirSync(folder);
    writeFileSync(join(tree.root, "outside", "secret.txt"), "s");
    symlinkSync(join(tree.root, "outside"), join(folder, "out"));
    expect([...scanWorkspace(folder).entries.keys()]).toEqual(["out"]);
  });
});
