import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSkillFields } from "../../src/skill/fields.js";
import { parseFrontMatterYaml } from "../../src/skill/front-matter.js";
import { scanCleanFields } from "../../src/skill/front-matter-scanner.js";
import { documentArbitrary, plainValueArbitrary } from "./front-matter-arbitraries.js";

/**
 * Discovery reads a clean skill's fields in the same pass as its front matter
 * (scanCleanFields). Whatever that gives must be what parsing the front matter and
 * readSkillFields give, with no problem found; anything with a problem, or anything the
 * one-pass scanner does not take, must be left to them.
 */

const FOLDER = "pdf-tools";

/** Asserts the contract for one front matter; returns whether the clean way took it. */
function agrees(yaml: string, folderName = FOLDER): boolean {
  const clean = scanCleanFields(yaml, folderName);
  if (clean === undefined) return false;
  const parsed = parseFrontMatterYaml(yaml);
  expect(parsed.diagnostics, JSON.stringify(yaml)).toEqual([]);
  const general = readSkillFields(parsed.data ?? {}, {
    folderName,
    mode: "strict",
    hasFrontMatter: true,
    body: "",
  });
  expect(general.diagnostics, JSON.stringify(yaml)).toEqual([]);
  expect(clean, JSON.stringify(yaml)).toStrictEqual(general.fields);
  expect(Object.keys(clean), JSON.stringify(yaml)).toEqual(Object.keys(general.fields ?? {}));
  return true;
}

const valueArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("Fill PDF forms.", "Read Write", "MIT", "é — “x”", "a: b", "  ") },
  { weight: 1, arbitrary: plainValueArbitrary },
  { weight: 1, arbitrary: fc.constantFrom('"quoted"', "'single'", '""', "x".repeat(1030)) },
);

/** One line (or block) per key: mostly what a clean skill has, sometimes a finding. */
const entries = {
  name: fc.oneof(
    { weight: 6, arbitrary: fc.constant(`name: ${FOLDER}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "name: Pdf-Tools",
        "name: pdf--tools",
        "name: other",
        `name: ${"p".repeat(65)}`,
        `name: "${FOLDER}"`,
        "name: ''",
      ),
    },
  ),
  description: fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        "description: Fill PDF forms and extract their text.",
        "description: >-\n  Folded over\n  two lines.",
        "description: |\n  Literal\n  lines.",
        'description: "Quoted — “text”."',
      ),
    },
    { weight: 2, arbitrary: valueArbitrary.map((value) => `description: ${value}`) },
  ),
  license: valueArbitrary.map((value) => `license: ${value}`),
  allowedTools: fc.constantFrom(
    "allowed-tools: Read Write",
    "allowed-tools: Bash(python:*)  Read\u3000Write",
    "allowed-tools: ''",
    "allowed-tools:\n  a: b",
  ),
  metadata: fc.constantFrom(
    "metadata:\n  skillgate.tier: read\n  author: x",
    "metadata:\n  skillgate.tier: maybe",
    "metadata:\n  parameters_schema: '{}'",
    "metadata: text",
  ),
  other: fc.oneof(
    valueArbitrary.map((value) => `compatibility: ${value}`),
    valueArbitrary.map((value) => `other: ${value}`),
  ),
};

const frontMatterArbitrary = fc
  .tuple(
    entries.name,
    entries.description,
    fc.option(entries.license),
    fc.option(entries.allowedTools),
    fc.option(entries.metadata),
    fc.option(entries.other, { freq: 8 }),
    fc.option(fc.constantFrom(`name: ${FOLDER}`, "description: again"), { freq: 12 }),
  )
  .chain((lines) =>
    fc.shuffledSubarray(
      lines.filter((line) => line !== null),
      { minLength: 1 },
    ),
  )
  .map((lines) => `${lines.join("\n")}\n`);

describe("scanCleanFields (discovery's clean skills)", () => {
  it("gives what parsing and readSkillFields give, or leaves the skill to them (property)", () => {
    let taken = 0;
    fc.assert(
      fc.property(frontMatterArbitrary, (yaml) => {
        if (agrees(yaml)) taken += 1;
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(documentArbitrary, (yaml) => {
        agrees(yaml);
        agrees(yaml, "k");
      }),
      { numRuns: 2_000 },
    );
    expect(taken).toBeGreaterThan(200);
  });

  it("takes the common skill and leaves every one with a finding to the general way", () => {
    const common =
      "name: pdf-tools\ndescription: Fill PDF forms.\nlicense: MIT\nallowed-tools: Read Write\nmetadata:\n  skillgate.tier: read\n";
    expect(agrees(common)).toBe(true);
    expect(scanCleanFields(common, FOLDER)).toStrictEqual({
      name: "pdf-tools",
      description: "Fill PDF forms.",
      metadata: { "skillgate.tier": "read" },
      allowedTools: ["Read", "Write"],
      license: "MIT",
    });
    for (const yaml of [
      "name: pdf-tools\n",
      "description: d\n",
      "name: other\ndescription: d\n",
      "name: Pdf-Tools\ndescription: d\n",
      "name: pdf-tools\ndescription: d\nextra: x\n",
      "name: pdf-tools\ndescription: d\ncompatibility: node\n",
      `name: pdf-tools\ndescription: ${"d".repeat(1025)}\n`,
      "name: pdf-tools\ndescription: d\nname: pdf-tools\n",
      "name: pdf-tools\ndescription: [a, list]\n",
      "name: pdf-tools\ndescription: d\nmetadata: text\n",
    ]) {
      expect(scanCleanFields(yaml, FOLDER), JSON.stringify(yaml)).toBeUndefined();
    }
  });
});
