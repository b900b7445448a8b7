import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Diagnostic, hasErrors } from "../../src/core/diagnostics.js";
import { MAX_NAME_LENGTH } from "../../src/core/limits.js";
import {
  firstParagraph,
  nameShape,
  readSkillFields,
  splitOnWhiteSpace,
  type ValidationMode,
} from "../../src/skill/fields.js";
import { loadSkillFolder } from "../../src/skill/load-skill.js";
import { skillFolder, skillText } from "./skill-folders.js";

/** Loads `frontMatter` from a folder named `folder` and returns the outcome in brief. */
function load(folder: string, frontMatter: string, mode: ValidationMode) {
  const loaded = loadSkillFolder(skillFolder(folder, skillText(frontMatter)), { source: "test", mode });
  return {
    skill: loaded.skill,
    found: loaded.diagnostics.map((item: Diagnostic) => [item.code, item.severity] as const),
    diagnostics: loaded.diagnostics,
  };
}

describe("field rules: one rule set, lenient warns where strict fails", () => {
  it.each([
    ["a", "name: a\ndescription: d"],
    ["pdf-tools", "name: pdf-tools\ndescription: d"],
    ["x9-2", "name: x9-2\ndescription: d"],
    ["a".repeat(MAX_NAME_LENGTH), `name: ${"a".repeat(MAX_NAME_LENGTH)}\ndescription: d`],
  ])("accepts the valid name %s in both modes", (folder, frontMatter) => {
    for (const mode of ["lenient", "strict"] as const) {
      const result = load(folder, frontMatter, mode);
      expect(result.found).toEqual([]);
      expect(result.skill?.name).toBe(folder);
    }
  });

  it.each([
    ["a leading hyphen", "-pdf"],
    ["a trailing hyphen", "pdf-"],
    ["a double hyphen", "pdf--tools"],
    ["upper case", "PDF-Tools"],
    ["an underscore", "pdf_tools"],
    ["a dot", "pdf.tools"],
  ])("a name with %s: lenient warns invalid_name and loads, strict fails", (_label, name) => {
    const lenient = load(name, `name: "${name}"\ndescription: d`, "lenient");
    expect(lenient.found).toEqual([["invalid_name", "warning"]]);
    expect(lenient.skill?.name).toBe(name);
    const strict = load(name, `name: "${name}"\ndescription: d`, "strict");
    expect(strict.found).toEqual([["invalid_name", "error"]]);
    expect(hasErrors(strict.diagnostics)).toBe(true);
  });

  it("a name that does not match its folder: lenient warns name_mismatch and loads, strict fails", () => {
    const lenient = load("folder", "name: other\ndescription: d", "lenient");
    expect(lenient.found).toEqual([["name_mismatch", "warning"]]);
    expect(lenient.skill?.name).toBe("other");
    expect(lenient.diagnostics[0]?.field).toBe("name");
    const strict = load("folder", "name: other\ndescription: d", "strict");
    expect(strict.found).toEqual([["name_mismatch", "error"]]);
  });

  it("a name over 64 characters: lenient warns name_too_long and loads, strict fails", () => {
    const name = "a".repeat(MAX_NAME_LENGTH + 1);
    const lenient = load(name, `name: ${name}\ndescription: d`, "lenient");
    expect(lenient.found).toEqual([["name_too_long", "warning"]]);
    expect(lenient.skill?.name).toBe(name);
    expect(load(name, `name: ${name}\ndescription: d`, "strict").found).toEqual([["name_too_long", "error"]]);
  });

  it("a name with characters outside ASCII is refused in both modes", () => {
    for (const mode of ["lenient", "strict"] as const) {
      const result = load("cafe", "name: café\ndescription: d", mode);
      expect(result.found).toEqual([["invalid_name", "error"]]);
      expect(result.skill).toBeUndefined();
    }
  });

  it("an uppercase folder name with no front matter is held to the same rules", () => {
    const loaded = loadSkillFolder(skillFolder("My_Skill", "Plain body.\n"), { source: "test" });
    expect(loaded.skill?.name).toBe("My_Skill");
    expect(loaded.diagnostics.map((item) => [item.code, item.severity])).toEqual([
      ["invalid_name", "warning"],
    ]);
  });

  it.each(["lenient", "strict"] as const)("a missing or empty description is refused (%s)", (mode) => {
    for (const frontMatter of [
      "name: a",
      "name: a\ndescription:",
      'name: a\ndescription: ""',
      "name: a\ndescription: '  '",
    ]) {
      const result = load("a", frontMatter, mode);
      expect(result.skill).toBeUndefined();
      expect(result.found).toEqual([["missing_description", "error"]]);
      expect(result.diagnostics[0]?.field).toBe("description");
    }
  });

  it("a description that is not text is refused", () => {
    const result = load("a", "name: a\ndescription: [x, y]", "lenient");
    expect(result.skill).toBeUndefined();
    expect(result.found).toEqual([["invalid_field", "error"]]);
  });

  it("counts description length in code points: 1,024 emoji pass, 1,025 do not", () => {
    const at = load("a", `name: a\ndescription: ${"😀".repeat(1024)}`, "lenient");
    expect(at.found).toEqual([]);
    expect(at.skill?.description.length).toBe(2048);
    const over = load("a", `name: a\ndescription: ${"😀".repeat(1025)}`, "lenient");
    expect(over.found).toEqual([["description_too_long", "warning"]]);
    expect(over.skill).toBeDefined();
    expect(load("a", `name: a\ndescription: ${"😀".repeat(1025)}`, "strict").found).toEqual([
      ["description_too_long", "error"],
    ]);
  });

  it("compatibility must be 1 to 500 characters", () => {
    expect(load("a", "name: a\ndescription: d\ncompatibility: Needs git.", "strict").found).toEqual([]);
    expect(load("a", `name: a\ndescription: d\ncompatibility: ${"é".repeat(500)}`, "strict").found).toEqual(
      [],
    );
    expect(load("a", `name: a\ndescription: d\ncompatibility: ${"é".repeat(501)}`, "lenient").found).toEqual([
      ["invalid_field", "warning"],
    ]);
    expect(load("a", 'name: a\ndescription: d\ncompatibility: ""', "strict").found).toEqual([
      ["invalid_field", "error"],
    ]);
    expect(load("a", "name: a\ndescription: d\ncompatibility: 3", "lenient").found).toEqual([
      ["invalid_field", "warning"],
    ]);
    const ok = load("a", "name: a\ndescription: d\ncompatibility: Needs git.\nlicense: MIT", "lenient");
    expect(ok.skill?.fields?.compatibility).toBe("Needs git.");
    expect(ok.skill?.fields?.license).toBe("MIT");
  });

  it("metadata must map text to text, except parameters_schema and skillgate.allowed-domains", () => {
    const good = load(
      "a",
      [
        "name: a",
        "description: d",
        "metadata:",
        "  author: me",
        '  version: "1.0"',
        "  parameters_schema: {type: object}",
        "  skillgate.allowed-domains: [example.com]",
      ].join("\n"),
      "strict",
    );
    expect(good.found).toEqual([]);
    expect(good.skill?.fields?.metadata.author).toBe("me");

    const bad = load("a", "name: a\ndescription: d\nmetadata:\n  version: 1.0\n  tags: [a, b]", "lenient");
    expect(bad.found).toEqual([
      ["invalid_metadata", "warning"],
      ["invalid_metadata", "warning"],
    ]);
    expect(bad.diagnostics.map((item) => item.field)).toEqual(["metadata.version", "metadata.tags"]);
    expect(bad.skill).toBeDefined();
    expect(load("a", "name: a\ndescription: d\nmetadata: [x]", "strict").found).toEqual([
      ["invalid_metadata", "error"],
    ]);
    expect(load("a", "name: a\ndescription: d\nmetadata: text", "lenient").found).toEqual([
      ["invalid_metadata", "warning"],
    ]);
  });

  it("reads allowed-tools as space-separated text or as a YAML list", () => {
    const text = load("a", "name: a\ndescription: d\nallowed-tools: Bash(git:*)  Read\tWrite", "strict");
    expect(text.found).toEqual([]);
    expect(text.skill?.fields?.allowedTools).toEqual(["Bash(git:*)", "Read", "Write"]);
    const list = load(
      "a",
      "name: a\ndescription: d\nallowed-tools:\n  - Bash(git:*)\n  - ' Read '",
      "strict",
    );
    expect(list.found).toEqual([]);
    expect(list.skill?.fields?.allowedTools).toEqual(["Bash(git:*)", "Read"]);
    const none = load("a", "name: a\ndescription: d", "strict");
    expect(none.skill?.fields?.allowedTools).toEqual([]);
  });

  it("refuses allowed-tools that is neither text nor a list of text", () => {
    expect(load("a", "name: a\ndescription: d\nallowed-tools: [Read, 3]", "lenient").found).toEqual([
      ["invalid_allowed_tools", "warning"],
    ]);
    expect(load("a", "name: a\ndescription: d\nallowed-tools: {Read: yes}", "strict").found).toEqual([
      ["invalid_allowed_tools", "error"],
    ]);
  });

  it("an unknown top-level field is a warning when lenient and an error when strict", () => {
    const lenient = load("a", "name: a\ndescription: d\nversion: 2", "lenient");
    expect(lenient.found).toEqual([["unknown_field", "warning"]]);
    expect(lenient.diagnostics[0]?.field).toBe("version");
    expect(lenient.skill).toBeDefined();
    expect(load("a", "name: a\ndescription: d\nversion: 2", "strict").found).toEqual([
      ["unknown_field", "error"],
    ]);
  });

  it("a missing name in strict mode is an error; lenient uses the folder", () => {
    expect(load("a", "description: d", "strict").found).toEqual([["missing_name", "error"]]);
    const lenient = load("a", "description: d", "lenient");
    expect(lenient.found).toEqual([["missing_name", "warning"]]);
    expect(lenient.skill?.name).toBe("a");
  });
});

describe("readSkillFields", () => {
  it("without front matter, lenient takes the folder name and the body's first paragraph", () => {
    const result = readSkillFields(
      {},
      {
        folderName: "plain",
        mode: "lenient",
        hasFrontMatter: false,
        body: "Say what changed.\n\nAnd nothing else.\n",
      },
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.fields).toEqual({
      name: "plain",
      description: "Say what changed.",
      metadata: {},
      allowedTools: [],
    });
  });

  it("without front matter, strict refuses with missing_front_matter (the specification requires it)", () => {
    const result = readSkillFields(
      {},
      {
        folderName: "plain",
        path: "/s/plain/SKILL.md",
        mode: "strict",
        hasFrontMatter: false,
        body: "Say what changed.\n",
      },
    );
    expect(result.fields).toBeUndefined();
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "missing_front_matter",
        severity: "error",
        path: "/s/plain/SKILL.md",
        field: "front matter",
      }),
    ]);
  });

  it("without front matter and with an empty body there is no description", () => {
    const result = readSkillFields(
      {},
      { folderName: "plain", mode: "lenient", hasFrontMatter: false, body: "\n\n" },
    );
    expect(result.fields).toBeUndefined();
    expect(result.diagnostics.map((item) => item.code)).toEqual(["missing_description"]);
  });

  it("firstParagraph joins the lines of the first paragraph", () => {
    expect(firstParagraph("\n\n  one\ntwo  \n \nthree")).toBe("one two");
  });
});

describe("splitOnWhiteSpace (allowed-tools as text)", () => {
  // Every character `\s` matches, some that look like white space but are not, and ordinary text.
  const unit = fc.constantFrom(
    " ",
    "\t",
    "\n",
    "\v",
    "\f",
    "\r",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u2005",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
    "\u180e",
    "\u200b",
    "\u0085",
    "\u001c",
    "a",
    "Read",
    "Bash(git:*)",
    "é",
    "😀",
  );

  it("gives what split(/\\s+/) without empty strings gives (property)", () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const text = units.join("");
        expect(splitOnWhiteSpace(text), JSON.stringify(text)).toEqual(
          text.split(/\s+/).filter((tool) => tool.length > 0),
        );
      }),
      { numRuns: 3_000 },
    );
  });

  it("returns an array of exactly the runs found", () => {
    const tools = splitOnWhiteSpace("  Bash(git:*)  Read\tWrite ");
    expect(tools).toEqual(["Bash(git:*)", "Read", "Write"]);
    expect(tools).toHaveLength(3);
    expect(splitOnWhiteSpace("   ")).toEqual([]);
  });
});

describe("nameShape (the name rules in one pass)", () => {
  it("decides as the three regular expressions do (property)", () => {
    const character = fc.constantFrom(
      "a",
      "z",
      "0",
      "9",
      "-",
      "-",
      ".",
      "_",
      "A",
      "Z",
      "é",
      "/",
      ":",
      " ",
      "\u200d",
      "😀",
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 8 }), (characters) => {
        const name = characters.join("");
        const expected =
          !/^[A-Za-z0-9_.-]+$/.test(name) || /^\.+$/.test(name)
            ? "refused"
            : /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name)
              ? "specification"
              : "loadable";
        expect(nameShape(name), JSON.stringify(name)).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
  });
});
