import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseWithYamlLibrary, splitFrontMatter } from "../../src/skill/front-matter.js";
import { parseSimpleFrontMatter } from "../../src/skill/simple-yaml.js";
import { blockArbitrary, documentArbitrary, simpleEntryArbitrary } from "./front-matter-arbitraries.js";

/**
 * The fast path may refuse anything, but what it accepts it must read exactly as the
 * `yaml` library (core schema) does. A generator biased towards YAML's sharp edges, every
 * fixture and every built-in skill hold it to that.
 */

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Asserts the contract for one text; returns whether the fast path took it. */
function agrees(yaml: string): boolean {
  const simple = parseSimpleFrontMatter(yaml);
  if (simple === undefined) return false;
  const full = parseWithYamlLibrary(yaml);
  expect(full.diagnostics, JSON.stringify(yaml)).toEqual([]);
  expect(simple, JSON.stringify(yaml)).toStrictEqual(full.data);
  return true;
}

describe("parseSimpleFrontMatter (the fast path)", () => {
  it("agrees with the yaml library on everything it accepts (property)", () => {
    let accepted = 0;
    let acceptedNested = 0;
    fc.assert(
      fc.property(fc.tuple(documentArbitrary, fc.constantFrom("", "\n")), ([document, end]) => {
        const yaml = `${document}${end}`;
        if (agrees(yaml)) {
          accepted += 1;
          if (/\n {1,4}\S/.test(yaml)) acceptedNested += 1;
        }
      }),
      { numRuns: 5_000 },
    );
    // The property says nothing if the fast path refuses everything the generator makes.
    expect(accepted).toBeGreaterThan(250);
    expect(acceptedNested).toBeGreaterThan(20);
  });

  it("agrees on block scalars, and takes the common folded description itself (property)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.tuple(
          fc.array(simpleEntryArbitrary, { maxLength: 2 }),
          blockArbitrary,
          fc.array(simpleEntryArbitrary, { maxLength: 2 }),
        ),
        ([before, block, after]) => {
          if (agrees([...before, block, ...after].join("\n"))) accepted += 1;
        },
      ),
      { numRuns: 3_000 },
    );
    expect(accepted).toBeGreaterThan(300);
    expect(
      parseSimpleFrontMatter("name: x\ndescription: >-\n  Folded over\n  two lines.\nlicense: MIT\n"),
    ).toEqual({
      name: "x",
      description: "Folded over two lines.",
      license: "MIT",
    });
  });

  it("agrees on hand-picked edge cases", () => {
    const cases = [
      "a: x\u00a0",
      "a: x\u00a0#c",
      "a: x #c",
      "a: 'x '",
      'a: " x "',
      "a: x\u3000",
      "a: é😀",
      "a: b:c",
      "a: [b]",
      "a: b]",
      "a: b, c",
      "a: b\n\nc: d\n",
      "metadata:\n  a: b\n  c: d\nname: x",
      "metadata:\n    a: b\n    c: d",
      "metadata:\n  a: b\n\n  c: d",
      "metadata:\n  a: b\n    c: d",
      "metadata:\n  a: b\n c: d",
      `${"k".repeat(1024)}: v`,
      `${"k".repeat(1025)}: v`,
      `metadata:\n  ${"k".repeat(1025)}: v`,
    ];
    for (const yaml of cases) agrees(yaml);
  });

  it("takes the common shape, so the fast path is actually used", () => {
    const yaml = [
      "name: pdf-tools",
      "description: Fill PDF forms and extract their text. Use when a user mentions PDFs.",
      "license: Apache-2.0",
      "allowed-tools: Bash(python:*) Read Write",
      "metadata:",
      "  author: example-org",
      '  version: "1.0"',
      "  skillgate.tier: read",
      "  skillgate.execution: sandbox",
      "",
    ].join("\n");
    expect(parseSimpleFrontMatter(yaml)).toStrictEqual({
      name: "pdf-tools",
      description: "Fill PDF forms and extract their text. Use when a user mentions PDFs.",
      license: "Apache-2.0",
      "allowed-tools": "Bash(python:*) Read Write",
      metadata: {
        author: "example-org",
        version: "1.0",
        "skillgate.tier": "read",
        "skillgate.execution": "sandbox",
      },
    });
    expect(agrees(yaml)).toBe(true);
  });

  it("refuses what it cannot be sure of", () => {
    for (const yaml of [
      "a: true",
      "a: 1",
      "a: ~",
      "a: null",
      "a: [x]",
      "a: &x y",
      "a: |+\n  text",
      "a: |2\n  text",
      "a: >\n  text\n   \n",
      "a: x # c",
      "a: b: c",
      "- a",
      "a: 'it''s'",
      'a: "\\n"',
      "__proto__: x",
      "a: x\tb",
      `${"k".repeat(1025)}: v`,
      "a: x\na: y",
      "metadata:\n  a: x\n  a: y",
    ]) {
      expect(parseSimpleFrontMatter(yaml), JSON.stringify(yaml)).toBeUndefined();
    }
  });

  it("agrees on every SKILL.md under test/fixtures/skills and skills/", () => {
    const files = [
      ...skillFiles(join(repository, "test", "fixtures", "skills")),
      ...skillFiles(join(repository, "skills")),
    ];
    expect(files.length).toBeGreaterThan(10);
    let fast = 0;
    for (const file of files) {
      const yaml = splitFrontMatter(readFileSync(file, "utf8")).yaml;
      if (yaml !== undefined && agrees(yaml)) fast += 1;
    }
    expect(fast).toBeGreaterThan(0);
  });

  it("takes the fast path for the well-formed common fixture", () => {
    const text = readFileSync(
      join(repository, "test", "fixtures", "skills", "valid-common", "SKILL.md"),
      "utf8",
    );
    const yaml = splitFrontMatter(text).yaml ?? "";
    expect(parseSimpleFrontMatter(yaml)).toBeDefined();
  });
});

/** Every SKILL.md below `root`; none when `root` does not exist. */
function skillFiles(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names.filter((name) => name.split(/[\\/]/).pop() === "SKILL.md").map((name) => join(root, name));
}
