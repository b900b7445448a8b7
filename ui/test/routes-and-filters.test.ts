import { describe, expect, it } from "vitest";
import { ApiError, filePath, query } from "../src/api/client.js";
import { listIn } from "../src/api/lists.js";
import type { SkillSummary } from "../src/api/types.js";
import { stripFrontMatter } from "../src/components/markdown.js";
import { problemsOf } from "../src/pages/editor-page.js";
import { matches } from "../src/pages/skills-list.js";
import { fileHref, parseRoute, skillHref } from "../src/router.js";

describe("parseRoute", () => {
  it.each([
    ["", { page: "skills" }],
    ["#/", { page: "skills" }],
    ["#/skills", { page: "skills" }],
    ["#/skills/pdf-tools", { page: "skill", name: "pdf-tools" }],
    [
      "#/skills/pdf-tools/files/scripts/a%20b.py",
      { page: "editor", name: "pdf-tools", path: "scripts/a b.py" },
    ],
    ["#/review", { page: "review" }],
    ["#/plans/0123abcd", { page: "plan", id: "0123abcd" }],
    ["#/asks", { page: "asks" }],
    ["#/chats", { page: "chats" }],
    ["#/chats/c-1", { page: "transcript", id: "c-1" }],
    ["#/audit?skill=x&chat=y", { page: "audit", skill: "x", chat: "y" }],
    ["#/import", { page: "import" }],
    ["#/queue", { page: "queue" }],
    ["#/generations", { page: "generations" }],
    ["#/skills/a/b", { page: "not-found", hash: "#/skills/a/b" }],
    ["#/nowhere", { page: "not-found", hash: "#/nowhere" }],
    ["#/skills/%E0%A4%A", { page: "skill", name: "%E0%A4%A" }],
  ])("%s", (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it("round-trips the hashes the app links to", () => {
    expect(parseRoute(skillHref("a b"))).toEqual({ page: "skill", name: "a b" });
    expect(parseRoute(fileHref("s", "scripts/x#y.py"))).toEqual({
      page: "editor",
      name: "s",
      path: "scripts/x#y.py",
    });
  });
});

describe("skills list filters", () => {
  const skill: SkillSummary = {
    name: "pdf-tools",
    description: "Split and merge PDF files",
    source: "owner",
    enabled: true,
    hash: "ab",
    runner: "sandbox",
    tier: "read",
  };
  const none = { search: "", source: "", enabled: "", runner: "", tier: "" } as const;
  it.each([
    [{ ...none }, true],
    [{ ...none, search: "MERGE" }, true],
    [{ ...none, search: "zip" }, false],
    [{ ...none, source: "owner" }, true],
    [{ ...none, source: "builtin" }, false],
    [{ ...none, enabled: "yes" }, true],
    [{ ...none, enabled: "no" }, false],
    [{ ...none, runner: "local" }, false],
    [{ ...none, tier: "read" }, true],
    [{ ...none, tier: "write" }, false],
  ] as const)("%o → %s", (filters, expected) => {
    expect(matches(skill, filters)).toBe(expected);
  });
});

describe("the script check's problems", () => {
  it("keeps the problems of the file being edited, with their lines", () => {
    const error = new ApiError(422, "script_check_failed", "scripts/a.py line 3 does not parse", {
      name: "s",
      problems: [
        { file: "scripts/a.py", line: 3, column: 5, message: "invalid syntax" },
        { file: "scripts/b.py", line: 1, message: "other file" },
      ],
    });
    expect(problemsOf(error, "scripts/a.py")).toEqual([{ line: 3, column: 5, message: "invalid syntax" }]);
  });

  it("has none for other refusals", () => {
    expect(problemsOf(new ApiError(409, "skill_changed", "moved", {}), "a.py")).toEqual([]);
    expect(problemsOf(new Error("offline"), "a.py")).toEqual([]);
  });
});

describe("small helpers", () => {
  it("encodes file paths segment by segment", () => {
    expect(filePath("scripts/a b/c?.py")).toBe("scripts/a%20b/c%3F.py");
  });
  it("builds a query of the values set", () => {
    expect(query({ skill: "x", chat: undefined, since: "" })).toBe("?skill=x");
    expect(query({})).toBe("");
  });
  it("reads a list from an array or from its key", () => {
    expect(listIn([1], "skills")).toEqual([1]);
    expect(listIn({ skills: [2] }, "skills")).toEqual([2]);
    expect(listIn({ other: [3] }, "skills")).toEqual([]);
    expect(listIn(null, "skills")).toEqual([]);
  });
  it("drops SKILL.md's front matter before rendering", () => {
    expect(stripFrontMatter("---\nname: a\n---\n# Title\n")).toBe("# Title\n");
    expect(stripFrontMatter("# No front matter\n")).toBe("# No front matter\n");
  });
});
