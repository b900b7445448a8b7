import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseWithYamlLibrary, splitFrontMatter } from "../../src/skill/front-matter.js";
import { scanFrontMatter } from "../../src/skill/front-matter-scanner.js";
import { parseSimpleFrontMatter } from "../../src/skill/simple-yaml.js";
import { documentArbitrary, lineArbitrary, plainValueArbitrary } from "./front-matter-arbitraries.js";

/**
 * The one-pass scanner may refuse anything, but what it returns must be exactly what the
 * line-based fast path returns (which is itself held to the `yaml` library), and the
 * `yaml` library too. The generators are the fast path's, so the scanner is tried on the
 * same sharp edges.
 */

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Asserts the contract for one text; returns whether the scanner took it. */
function agrees(yaml: string): boolean {
  const scanned = scanFrontMatter(yaml);
  if (scanned === undefined) return false;
  expect(parseSimpleFrontMatter(yaml), JSON.stringify(yaml)).toStrictEqual(scanned);
  const full = parseWithYamlLibrary(yaml);
  expect(full.diagnostics, JSON.stringify(yaml)).toEqual([]);
  expect(full.data, JSON.stringify(yaml)).toStrictEqual(scanned);
  expect(Object.keys(scanned), JSON.stringify(yaml)).toEqual(Object.keys(full.data ?? {}));
  return true;
}

/** Values the fast paths usually take, with the occasional sharp one. */
const wordsArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "read",
      "Two words here",
      "é中😀",
      "x:y",
      "a#b",
      "1.0 beta",
      "Bash(git:*) Read",
      "Use it when — “quoted” — text",
    ),
  },
  { weight: 2, arbitrary: plainValueArbitrary },
);

const scalarArbitrary = fc.oneof(
  { weight: 5, arbitrary: wordsArbitrary },
  { weight: 1, arbitrary: wordsArbitrary.map((value) => `"${value}"`) },
  { weight: 1, arbitrary: wordsArbitrary.map((value) => `'${value}'`) },
);

const metadataKeys = ["author", "version", "skillgate.tier", "skillgate.execution", "a.b-c_d", "k"];

const mappingArbitrary = fc
  .tuple(
    fc.integer({ min: 1, max: 4 }),
    fc.uniqueArray(fc.constantFrom(...metadataKeys), { minLength: 1, maxLength: 5 }),
    fc.array(scalarArbitrary, { minLength: 5, maxLength: 5 }),
  )
  .map(
    ([indent, keys, values]) =>
      `metadata:\n${keys.map((key, index) => `${" ".repeat(indent)}${key}: ${values[index]}`).join("\n")}`,
  );

const descriptionArbitrary = fc.oneof(
  scalarArbitrary.map((value) => `description: ${value}`),
  fc
    .tuple(
      fc.constantFrom(">-", ">", "|", "|-"),
      fc.integer({ min: 1, max: 4 }),
      fc.array(wordsArbitrary, { minLength: 1, maxLength: 3 }),
    )
    .map(
      ([header, indent, lines]) =>
        `description: ${header}\n${lines.map((line) => `${" ".repeat(indent)}${line}`).join("\n")}`,
    ),
);

/** The common SKILL.md shape: distinct keys, a plain, quoted or block description, a metadata mapping. */
const commonShapeArbitrary = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom("name", "license", "allowed-tools", "compatibility", "x-extra"), {
      maxLength: 4,
    }),
    fc.array(scalarArbitrary, { minLength: 4, maxLength: 4 }),
    descriptionArbitrary,
    fc.option(mappingArbitrary),
    fc.nat(5),
    fc.constantFrom("", "\n", "\n\n"),
  )
  .map(([keys, values, description, mapping, at, end]) => {
    const lines = keys.map((key, index) => `${key}: ${values[index]}`);
    lines.splice(at % (lines.length + 1), 0, description);
    if (mapping !== null) lines.push(mapping);
    return `${lines.join("\n")}${end}`;
  });

describe("scanFrontMatter (the one-pass scanner)", () => {
  it("agrees with the line-based fast path and the yaml library on everything it takes (property)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.tuple(documentArbitrary, fc.constantFrom("", "\n")), ([document, end]) => {
        if (agrees(`${document}${end}`)) accepted += 1;
      }),
      { numRuns: 5_000 },
    );
    expect(accepted).toBeGreaterThan(250);
  });

  it("agrees on the common shape and on line soup (property)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(commonShapeArbitrary, (yaml) => {
        if (agrees(yaml)) accepted += 1;
      }),
      { numRuns: 4_000 },
    );
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 6 }), (lines) => {
        agrees(lines.join("\n"));
      }),
      { numRuns: 3_000 },
    );
    expect(accepted).toBeGreaterThan(1_000);
  });

  it("takes everything the line-based fast path takes in the common shape, but for backslashes and ' #' (property)", () => {
    fc.assert(
      fc.property(commonShapeArbitrary, (yaml) => {
        const simple = parseSimpleFrontMatter(yaml);
        // Left to the line-based path on purpose: they need a look at where they stand.
        if (simple === undefined || yaml.includes("\\") || yaml.includes(" #")) return;
        expect(scanFrontMatter(yaml), JSON.stringify(yaml)).toStrictEqual(simple);
      }),
      { numRuns: 3_000 },
    );
  });

  it("agrees on hand-picked edge cases around line ends, indentation and block ends", () => {
    const cases = [
      "",
      "\n",
      "\n\n",
      "a: b",
      "a: b\n",
      "a: b   \n",
      "a:",
      "a:\n",
      "a:   \n  b: c",
      "metadata:\n  a: b",
      "metadata:\n  a: b\n",
      "metadata:\n  a: b\n\n",
      "metadata:\n  a: b\n\nc: d",
      "metadata:\n  a: b\nc: d\n",
      "metadata:\n\n  a: b",
      "metadata:\n  a:\n",
      "metadata:\n  a:b\n",
      "metadata:\n  a: b\n   c: d",
      "metadata:\n   \n",
      "metadata:\n  a: |\n    x",
      "description: >-",
      "description: >-\n",
      "description: >-\n  one\n  two",
      "description: >-\n  one\n  two\n",
      "description: >\n  one\n  two\n\n\nname: x\n",
      "description: |\n  one\n  two\n\n  three\n",
      "description: |-\n  one\n\n\n",
      "description: >-\n  one\n\n  \n",
      "description: >-\n  one\n   two\n",
      "description: >-\n  one \n",
      "description: >-\n  one\n \n",
      "description: >-\n\n  one\n",
      "description: >-  \n  one\n",
      "description: >- \n  a: b # c\n",
      "a: 'x'",
      "a: ''",
      'a: ""',
      "a: '",
      "a: x:",
      "a: x: y",
      "a: x #y",
      "a: x#y",
      "a: falsey",
      "a: False",
      "a: nullable",
      `${"k".repeat(1024)}: v`,
      `${"k".repeat(1025)}: v`,
      "a: \u00a0x",
      "a: x\u0085",
      "a: \u2003x",
    ];
    for (const yaml of cases) agrees(yaml);
  });

  it("takes the common shape, including a folded description", () => {
    const yaml = [
      "name: pdf-tools",
      "description: >-",
      "  Fill PDF forms and extract their text.",
      "  Use when a user mentions PDFs.",
      "license: Apache-2.0",
      "allowed-tools: Bash(python:*) Read Write",
      "metadata:",
      "  author: example-org",
      '  version: "1.0"',
      "  skillgate.tier: read",
      "",
    ].join("\n");
    expect(scanFrontMatter(yaml)).toStrictEqual({
      name: "pdf-tools",
      description: "Fill PDF forms and extract their text. Use when a user mentions PDFs.",
      license: "Apache-2.0",
      "allowed-tools": "Bash(python:*) Read Write",
      metadata: { author: "example-org", version: "1.0", "skillgate.tier": "read" },
    });
    expect(agrees(yaml)).toBe(true);
  });

  it("refuses what it cannot be sure of", () => {
    for (const yaml of [
      "a: true",
      "a: 1",
      "a: ~",
      "a: [x]",
      "a: &x y",
      "a: |+\n  text",
      "a: |2\n  text",
      "a: x # c",
      "a: b: c",
      "- a",
      "# comment",
      " a: b",
      "a: 'it''s'",
      'a: "\\n"',
      "__proto__: x",
      "constructor: x",
      "a: x\tb",
      "a:\tb",
      "a: x\na: y",
      "metadata:\n  a: x\n  a: y",
      "metadata:\n  __proto__: x",
      "metadata:\n  a: b\n c: d",
      "a: b\n  c: d",
    ]) {
      expect(scanFrontMatter(yaml), JSON.stringify(yaml)).toBeUndefined();
    }
  });

  it("agrees on every SKILL.md under test/fixtures/skills and skills/", () => {
    const files = [
      ...skillFiles(join(repository, "test", "fixtures", "skills")),
      ...skillFiles(join(repository, "skills")),
    ];
    expect(files.length).toBeGreaterThan(10);
    let scanned = 0;
    for (const file of files) {
      const yaml = splitFrontMatter(readFileSync(file, "utf8")).yaml;
      if (yaml !== undefined && agrees(yaml)) scanned += 1;
    }
    expect(scanned).toBeGreaterThan(0);
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
