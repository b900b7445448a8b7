import { describe, expect, it } from "vitest";
import { isSkillgateError } from "../../src/core/errors.js";
import { checkPathSet, checkRelativePath, checkSkillName, resolveInside } from "../../src/store/paths.js";

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (isSkillgateError(error)) return error.code;
    throw error;
  }
}

describe("checkRelativePath", () => {
  const hostile: [string, unknown][] = [
    ["empty", ""],
    ["absolute", "/etc/passwd"],
    ["parent", "../outside.md"],
    ["parent in the middle", "scripts/../../outside.md"],
    ["dot segment", "scripts/./run.py"],
    ["backslash", "scripts\\run.py"],
    ["backslash parent", "..\\outside.md"],
    ["NUL", "scripts/run.py\u0000.md"],
    ["control character", "scripts/\u0007bell.md"],
    ["drive letter", "C:/Windows/system.ini"],
    ["alternate data stream", "notes.md:hidden"],
    ["double slash", "scripts//run.py"],
    ["trailing slash", "scripts/"],
    ["hidden file", ".env"],
    ["hidden folder", "scripts/.git/config"],
    ["trailing dot (Windows drops it)", "run."],
    ["trailing space", "run "],
    ["not NFC", "caf\u0065\u0301.md"],
    ["too long segment", "a".repeat(256)],
    ["too long path", `${"abcdefgh/".repeat(120)}x.md`],
    ["not text", 42],
  ];
  it.each(hostile)("refuses %s with path_not_allowed", (_label, path) => {
    expect(codeOf(() => checkRelativePath(path))).toBe("path_not_allowed");
  });

  it.each([
    "SKILL.md",
    "scripts/run.py",
    "references/deep/er/notes.md",
    "assets/logo-1.png",
    "café.md",
    "a..b.md",
  ])("accepts %s", (path) => {
    expect(checkRelativePath(path)).toBe(path);
  });

  it("resolveInside keeps the path inside the root", () => {
    expect(resolveInside("/data/skills/x", "scripts/run.py")).toBe("/data/skills/x/scripts/run.py");
    expect(codeOf(() => resolveInside("/data/skills/x", "../y/SKILL.md"))).toBe("path_not_allowed");
  });
});

describe("checkPathSet", () => {
  it("refuses names that differ only in case", () => {
    expect(codeOf(() => checkPathSet(["Notes.md", "notes.md"]))).toBe("path_not_allowed");
  });
  it("refuses a path that is a file and a folder at once", () => {
    expect(codeOf(() => checkPathSet(["scripts", "scripts/run.py"]))).toBe("path_not_allowed");
  });
  it("accepts distinct paths", () => {
    expect(codeOf(() => checkPathSet(["SKILL.md", "scripts/run.py", "scripts/other.py"]))).toBeUndefined();
  });
});

describe("checkSkillName (Agent Skills rule)", () => {
  it.each([
    "",
    "Upper",
    "with_underscore",
    "-leading",
    "trailing-",
    "double--hyphen",
    "a".repeat(65),
    "../escape",
    ".hidden",
    "__proto__",
    "spa ce",
  ])("refuses %j with invalid_skill_name", (name) => {
    expect(codeOf(() => checkSkillName(name))).toBe("invalid_skill_name");
  });
  it.each(["a", "pdf-tools", "x1-y2", "constructor", "a".repeat(64)])("accepts %s", (name) => {
    expect(checkSkillName(name)).toBe(name);
  });
});
