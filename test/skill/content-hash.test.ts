import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { grant, hashSkillFolder } from "../../src/skill/content-hash.js";
import { emptySkillFolder, temporaryRoot } from "./skill-folders.js";

const FILES: Record<string, string> = {
  "SKILL.md": "---\nname: hashed\ndescription: d\n---\nBody.\n",
  "scripts/run.sh": "#!/bin/sh\necho hi\n",
  "references/deep/notes.md": "Some notes.\n",
  "assets/data.bin": "\u0000\u0001\u0002",
};

function makeSkill(files: Record<string, string> = FILES): string {
  const directory = emptySkillFolder("hashed");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), content);
  }
  return directory;
}

function hashOf(directory: string): string {
  const result = hashSkillFolder(directory);
  expect(result.diagnostics).toEqual([]);
  if (result.hash === undefined) throw new Error("no hash");
  return result.hash;
}

describe("hashSkillFolder", () => {
  it("is deterministic and does not depend on where the folder is", () => {
    const directory = makeSkill();
    const first = hashOf(directory);
    expect(hashOf(directory)).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const copy = join(temporaryRoot(), "elsewhere");
    cpSync(directory, copy, { recursive: true });
    expect(hashOf(copy)).toBe(first);
  });

  it("follows the documented format: F\\0path\\0length\\0bytes, paths in byte order", () => {
    const directory = makeSkill({ b: "two", "A/x": "", a: "one" });
    const expected = createHash("sha256");
    for (const [path, content] of [
      ["A/x", ""],
      ["a", "one"],
      ["b", "two"],
    ] as const) {
      expected.update(`F\0${path}\0${Buffer.byteLength(content)}\0`);
      expected.update(content);
    }
    expect(hashOf(directory)).toBe(expected.digest("hex"));
    expect(hashSkillFolder(directory).entries.map((entry) => entry.path)).toEqual(["A/x", "a", "b"]);
  });

  it.each(Object.keys(FILES).map((path) => [path]))("changes when one byte of %s changes", (path) => {
    const directory = makeSkill();
    const before = hashOf(directory);
    const file = join(directory, path);
    const bytes = readFileSync(file);
    for (const index of [0, bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[index] = (changed[index] ?? 0) ^ 1;
      writeFileSync(file, changed);
      expect(hashOf(directory)).not.toBe(before);
      writeFileSync(file, bytes);
      expect(hashOf(directory)).toBe(before);
    }
  });

  it("changes when a file is added, removed or renamed", () => {
    const directory = makeSkill();
    const before = hashOf(directory);

    writeFileSync(join(directory, "scripts/extra.sh"), "echo extra\n");
    const added = hashOf(directory);
    expect(added).not.toBe(before);

    rmSync(join(directory, "scripts/extra.sh"));
    expect(hashOf(directory)).toBe(before);

    rmSync(join(directory, "references/deep/notes.md"));
    expect(hashOf(directory)).not.toBe(before);
  });

  it("changes when a file is renamed or moved with the same content", () => {
    const directory = makeSkill();
    const before = hashOf(directory);
    renameSync(join(directory, "scripts/run.sh"), join(directory, "scripts/run2.sh"));
    const renamed = hashOf(directory);
    expect(renamed).not.toBe(before);
    renameSync(join(directory, "scripts/run2.sh"), join(directory, "run2.sh"));
    expect(hashOf(directory)).not.toBe(renamed);
  });

  it("changes when an empty file is added", () => {
    const directory = makeSkill();
    const before = hashOf(directory);
    writeFileSync(join(directory, "scripts/empty"), "");
    expect(hashOf(directory)).not.toBe(before);
  });

  it("does not let content slide between files (a length prefix separates them)", () => {
    const one = hashOf(makeSkill({ a: "xy", b: "" }));
    const two = hashOf(makeSkill({ a: "x", b: "y" }));
    expect(one).not.toBe(two);
  });

  it("does not change when only modification times change", () => {
    const directory = makeSkill();
    const before = hashOf(directory);
    const past = new Date("2001-02-03T04:05:06Z");
    for (const path of Object.keys(FILES)) utimesSync(join(directory, path), past, past);
    utimesSync(directory, past, past);
    expect(hashOf(directory)).toBe(before);
  });

  it("reports a symlink as symlink_not_allowed and never follows it", () => {
    const outside = join(temporaryRoot(), "target.txt");
    writeFileSync(outside, "first");
    const directory = makeSkill();
    symlinkSync(outside, join(directory, "scripts/linked.txt"));
    const result = hashSkillFolder(directory);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "symlink_not_allowed",
        severity: "error",
        path: join(directory, "scripts/linked.txt"),
      }),
    ]);
    expect(result.entries.find((entry) => entry.path === "scripts/linked.txt")?.kind).toBe("symlink");
    writeFileSync(outside, "second, and longer");
    expect(hashSkillFolder(directory).hash).toBe(result.hash);
  });

  it("does not descend into a symlinked folder", () => {
    const outside = join(temporaryRoot(), "tree");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "secret");
    const directory = makeSkill();
    symlinkSync(outside, join(directory, "references/tree"));
    const result = hashSkillFolder(directory);
    expect(result.entries.map((entry) => entry.path)).not.toContain("references/tree/secret.txt");
    expect(result.diagnostics.map((item) => item.code)).toEqual(["symlink_not_allowed"]);
    writeFileSync(join(outside, "secret.txt"), "changed");
    writeFileSync(join(outside, "new.txt"), "new");
    expect(hashSkillFolder(directory).hash).toBe(result.hash);
  });

  it("changes when a symlink's target text changes", () => {
    const directory = makeSkill();
    symlinkSync("one", join(directory, "link"));
    const before = hashSkillFolder(directory).hash;
    rmSync(join(directory, "link"));
    symlinkSync("two", join(directory, "link"));
    expect(hashSkillFolder(directory).hash).not.toBe(before);
  });

  it("reports a FIFO without blocking on it", () => {
    const directory = makeSkill();
    execFileSync("mkfifo", [join(directory, "scripts/pipe")]);
    const result = hashSkillFolder(directory);
    expect(result.diagnostics.map((item) => item.code)).toEqual(["unreadable_file"]);
    expect(result.entries.find((entry) => entry.path === "scripts/pipe")?.kind).toBe("other");
  });

  it("a folder that does not exist gives no hash and a diagnostic, not an exception", () => {
    const result = hashSkillFolder(join(temporaryRoot(), "missing"));
    expect(result.hash).toBeUndefined();
    expect(result.diagnostics.map((item) => item.code)).toEqual(["unreadable_file"]);
  });

  it("writes nothing into the folder", () => {
    const directory = makeSkill();
    const before = hashSkillFolder(directory).entries.map((entry) => entry.path);
    hashSkillFolder(directory);
    expect(hashSkillFolder(directory).entries.map((entry) => entry.path)).toEqual(before);
  });
});

describe("grant", () => {
  it("is skill:<name>@<first 8 hex of the hash>", () => {
    const hash = hashOf(makeSkill());
    expect(grant("x", hash)).toBe(`skill:x@${hash.slice(0, 8)}`);
    expect(grant("pdf-tools", "0123456789abcdef")).toBe("skill:pdf-tools@01234567");
  });

  it("an old grant no longer matches after any edit", () => {
    const directory = makeSkill();
    const old = grant("hashed", hashOf(directory));
    writeFileSync(join(directory, "scripts/run.sh"), "#!/bin/sh\necho bye\n");
    expect(grant("hashed", hashOf(directory))).not.toBe(old);
  });
});
