import { describe, expect, it } from "vitest";
import {
  parseRelativePath,
  type RelativePathOptions,
  type RelativePathRule,
} from "../../src/core/safe-paths.js";
import { checkScriptPath } from "../../src/runners/sandbox/request-checks.js";
import { readParametersSchema } from "../../src/skill/parameters-schema.js";
import { normaliseEntryPath } from "../../src/store/import/entry-path.js";
import { checkRelativePath } from "../../src/store/paths.js";
import { parseSkillResourceUri } from "../../src/surfaces/mcp/resources.js";
import { checkResourcePath } from "../../src/tools/skill-files.js";

const strict: RelativePathOptions = {};
const entry: RelativePathOptions = {
  dotAndEmptySegments: "drop",
  maxBytes: 64,
  maxNameBytes: 16,
  maxDepth: 3,
};
const canonical: RelativePathOptions = { canonical: true, maxBytes: 64, maxNameBytes: 16 };
const rulesets = { strict, entry, canonical } as const;
type Ruleset = keyof typeof rulesets;

/** One row: a path, and for each rule set the rule it breaks or the path it is accepted as. */
type Row = readonly [
  label: string,
  path: unknown,
  expected: Record<Ruleset, RelativePathRule | { path: string }>,
];

const ok = (path: string) => ({ path });
const same = (rule: RelativePathRule): Record<Ruleset, RelativePathRule> => ({
  strict: rule,
  entry: rule,
  canonical: rule,
});

const table: readonly Row[] = [
  ["a plain file", "SKILL.md", { strict: ok("SKILL.md"), entry: ok("SKILL.md"), canonical: ok("SKILL.md") }],
  [
    "a nested file",
    "scripts/run.py",
    { strict: ok("scripts/run.py"), entry: ok("scripts/run.py"), canonical: ok("scripts/run.py") },
  ],
  [
    "a name with two dots inside",
    "a..b.md",
    { strict: ok("a..b.md"), entry: ok("a..b.md"), canonical: ok("a..b.md") },
  ],
  ["not text", 42, same("not_text")],
  ["empty", "", same("empty")],
  ["NUL", "run.py\u0000.md", same("control_character")],
  ["another control character", "scripts/\u0007bell.md", same("control_character")],
  ["DEL", "a\u007fb", same("control_character")],
  ["a backslash", "scripts\\run.py", same("backslash")],
  ["a backslash climbing out", "..\\outside.md", same("backslash")],
  ["absolute", "/etc/passwd", same("absolute")],
  ["a drive letter with a slash", "C:/Windows/system.ini", same("drive_letter")],
  ["a drive letter without a slash", "c:evil", same("drive_letter")],
  ["a parent at the start", "../outside.md", same("parent_segment")],
  ["a parent in the middle", "scripts/../../outside.md", same("parent_segment")],
  ["only a parent", "..", same("parent_segment")],
  [
    "a double slash",
    "scripts//run.py",
    { strict: "empty_segment", entry: ok("scripts/run.py"), canonical: "empty_segment" },
  ],
  ["a leading ./", "./SKILL.md", { strict: "dot_segment", entry: ok("SKILL.md"), canonical: "dot_segment" }],
  [
    "a . in the middle",
    "scripts/./run.py",
    { strict: "dot_segment", entry: ok("scripts/run.py"), canonical: "dot_segment" },
  ],
  [
    "a trailing slash",
    "scripts/",
    { strict: "empty_segment", entry: ok("scripts"), canonical: "empty_segment" },
  ],
  ["only ./", "./", { strict: "dot_segment", entry: ok(""), canonical: "dot_segment" }],
  ["only .", ".", { strict: "dot_segment", entry: "no_file_name", canonical: "dot_segment" }],
  [
    "a colon (alternate stream)",
    "notes.md:hidden",
    { strict: ok("notes.md:hidden"), entry: ok("notes.md:hidden"), canonical: "colon" },
  ],
  ["a hidden file", ".env", { strict: ok(".env"), entry: ok(".env"), canonical: "hidden_name" }],
  [
    "a hidden folder",
    "scripts/.git/config",
    { strict: ok("scripts/.git/config"), entry: ok("scripts/.git/config"), canonical: "hidden_name" },
  ],
  ["a trailing dot", "run.", { strict: ok("run."), entry: ok("run."), canonical: "trailing_dot_or_space" }],
  ["a trailing space", "run ", { strict: ok("run "), entry: ok("run "), canonical: "trailing_dot_or_space" }],
  [
    "not NFC",
    "cafe\u0301.md",
    { strict: ok("cafe\u0301.md"), entry: ok("cafe\u0301.md"), canonical: "not_nfc" },
  ],
  [
    "a long name",
    "a".repeat(17),
    { strict: ok("a".repeat(17)), entry: "name_too_long", canonical: "name_too_long" },
  ],
  [
    "a long path",
    "abcdefgh/".repeat(8).concat("x"),
    { strict: ok("abcdefgh/".repeat(8).concat("x")), entry: "too_long", canonical: "too_long" },
  ],
  ["too deep", "a/b/c/d", { strict: ok("a/b/c/d"), entry: "too_deep", canonical: ok("a/b/c/d") }],
];

describe("parseRelativePath: every rule, under each rule set", () => {
  const rows = table.flatMap(([label, path, expected]) =>
    (Object.keys(rulesets) as Ruleset[]).map((set) => [label, set, path, expected[set]] as const),
  );
  it.each(rows)("%s (%s)", (_label, set, path, expected) => {
    const result = parseRelativePath(path, rulesets[set]);
    if (typeof expected === "string") {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.problem.rule).toBe(expected);
        expect(result.problem.reason.length).toBeGreaterThan(0);
      }
    } else {
      expect(result).toMatchObject({ ok: true, value: { path: expected.path } });
    }
  });

  it("marks a trailing slash as a folder only when dropping empty segments", () => {
    expect(parseRelativePath("scripts/", entry)).toEqual({
      ok: true,
      value: { path: "scripts", segments: ["scripts"], isFolder: true },
    });
    expect(parseRelativePath("scripts/run.py", entry)).toMatchObject({
      ok: true,
      value: { isFolder: false },
    });
  });

  it("never accepts a path whose names include '', '.' or '..'", () => {
    for (const [, path] of table)
      for (const set of Object.values(rulesets)) {
        const result = parseRelativePath(path, set);
        if (result.ok)
          expect(result.value.segments.filter((part) => ["", ".", ".."].includes(part))).toEqual([]);
      }
  });
});

describe("every caller refuses what the one check refuses", () => {
  // Paths that climb out or would on another platform; each caller once had its own rules
  // and missed some of these (control characters, drive letters, `scripts/../x`).
  const hostile = [
    "../x.py",
    "scripts/../../x.py",
    "scripts/../x.py",
    "/etc/x.py",
    "C:/x.py",
    "scripts\\x.py",
    "scripts/x\u0000.py",
    "scripts/x\n.py",
  ];
  const listed = hostile.map((path) => path.replace(/^\.\//, ""));

  it.each(hostile)("%s", (path) => {
    expect(checkResourcePath(path, listed).ok).toBe(false);
    expect(() =>
      parseSkillResourceUri(`skill://demo/${path.split("/").map(encodeURIComponent).join("/")}`),
    ).toThrow(expect.objectContaining({ data: expect.objectContaining({ code: "path_not_allowed" }) }));
    expect(checkScriptPath(path)).toMatchObject({ code: "invalid_script" });
    expect(() => checkRelativePath(path)).toThrow(expect.objectContaining({ code: "path_not_allowed" }));
    expect(() => normaliseEntryPath(path)).toThrow(expect.objectContaining({ code: "path_not_allowed" }));
    const schema = readParametersSchema({ [path]: { type: "object" } });
    expect(schema.problem).toMatch(/not a path inside the skill/);
  });
});
