import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseWithYamlLibrary, splitFrontMatter } from "../../src/skill/front-matter.js";
import { parseSimpleFrontMatter } from "../../src/skill/simple-yaml.js";

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

const keyArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "name",
      "description",
      "license",
      "allowed-tools",
      "metadata",
      "compatibility",
    ),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "skillgate.tier",
      "skillgate.allowed-domains",
      "a.b-c_d",
      "x-",
      "_under",
      "k.",
      "true",
      "False",
      "null",
      "NULL",
      "~",
      "y",
      "on",
      "no",
      "<<",
      "1abc",
      "123",
      "-x",
      ".5",
      "x y",
      "é",
      "__proto__",
      "constructor",
      "key ",
      "?k",
      "&anchor",
      "k".repeat(1024),
      "k".repeat(1025),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.string({
      unit: fc.constantFrom("a", "Z", "0", "-", ".", "_", ":", " "),
      minLength: 1,
      maxLength: 8,
    }),
  },
);

const fragmentArbitrary = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      "plain",
      "Two words",
      "x",
      "a: b",
      "a:b",
      "ends:",
      ":",
      " #",
      " # comment",
      "#",
      "a#b",
      "'",
      '"',
      "''",
      "it's",
      "123",
      "0x1F",
      "0o17",
      "1e3",
      "1.5",
      "-1",
      "+1",
      ".inf",
      ".NaN",
      "true",
      "True",
      "false",
      "null",
      "Null",
      "~",
      "yes",
      "-",
      "- a",
      "? q",
      "[a, b]",
      "{a: b}",
      "[",
      "]",
      "{",
      "}",
      ",",
      "&a",
      "*a",
      "!tag",
      "!!str x",
      "|",
      ">",
      "%",
      "@",
      "`",
      "\\",
      "\\n",
      "=",
      "<<",
      " ",
      "  ",
      "\t",
      "\u00a0",
      "\u3000",
      "\u2003",
      "\u2028",
      "\u0085",
      "\ufeff",
      "é",
      "中文",
      "😀",
      "Bash(git:*)",
      "https://example.com/x?y=1#z",
      "...",
      "---",
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
);

const plainValueArbitrary = fc
  .array(fragmentArbitrary, { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(""));

const valueArbitrary = fc.oneof(
  { weight: 6, arbitrary: plainValueArbitrary },
  { weight: 2, arbitrary: plainValueArbitrary.map((value) => `"${value}"`) },
  { weight: 2, arbitrary: plainValueArbitrary.map((value) => `'${value}'`) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "  trailing  ", '"unterminated', "'mixed\"") },
);

/** An entry the fast path should usually take: a safe key and a value of ordinary words. */
const simpleEntryArbitrary = fc
  .tuple(
    fc.constantFrom("author", "version", "skillgate.tier", "skillgate.execution", "a.b-c_d", "k"),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("read", "Two words here", "é中😀", "x:y", "a#b", "1.0 beta") },
      { weight: 1, arbitrary: plainValueArbitrary },
    ),
  )
  .map(([key, value]) => `${key}: ${value}`);

/** `key: value` with a choice of spacing, including none and a tab after the colon. */
const entryArbitrary = fc
  .tuple(
    keyArbitrary,
    fc.constantFrom(": ", ": ", ": ", ":  ", ":", ":\t"),
    valueArbitrary,
    fc.constantFrom("", "", " ", "  "),
  )
  .map(([key, separator, value, trailing]) => `${key}${separator}${value}${trailing}`);

/** A nested block: an indent, entries mostly at that indent, sometimes one off or blank. */
const nestedArbitrary = fc
  .tuple(
    fc.oneof({ weight: 3, arbitrary: fc.constant("metadata") }, { weight: 1, arbitrary: keyArbitrary }),
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) },
      { weight: 1, arbitrary: fc.constant(0) },
    ),
    fc.array(
      fc.tuple(
        fc.oneof({ weight: 2, arbitrary: simpleEntryArbitrary }, { weight: 1, arbitrary: entryArbitrary }),
        fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 1, -1),
        fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
      ),
      { minLength: 1, maxLength: 5 },
    ),
    fc.constantFrom("", "", "", "", " ", "\n"),
  )
  .map(([key, indent, entries, after]) => {
    const lines = entries.map(
      ([entry, shift, blankBefore]) =>
        `${blankBefore ? "\n" : ""}${" ".repeat(Math.max(0, indent + shift))}${entry}`,
    );
    return `${key}:${after}\n${lines.join("\n")}`;
  });

// Literal and folded block scalars, mostly well-formed, sometimes with blank lines, deeper
// lines, trailing spaces, keep chomping or an indentation indicator.
const blockLineArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("one two", "x: y", "a # b", "- item", "é中😀", '"quoted"', "#hash"),
  },
  { weight: 2, arbitrary: plainValueArbitrary },
  { weight: 1, arbitrary: fc.constantFrom("", "trailing ", " extra", "\ttab") },
);

const blockArbitrary = fc
  .tuple(
    fc.constantFrom("description", "name", "k"),
    fc.constantFrom(">", ">-", "|", "|-", ">+", "|2", "> # c", ">-  "),
    fc.integer({ min: 1, max: 4 }),
    fc.array(blockLineArbitrary, { minLength: 0, maxLength: 4 }),
    fc.constantFrom("", "", "\n", "\n\n"),
  )
  .map(([key, header, indent, lines, tail]) => {
    const body = lines.map((line) => `${" ".repeat(indent)}${line}`).join("\n");
    return `${key}: ${header}\n${body}${tail}`;
  });

const lineArbitrary = fc.oneof(
  { weight: 4, arbitrary: entryArbitrary },
  { weight: 2, arbitrary: blockArbitrary },
  { weight: 2, arbitrary: simpleEntryArbitrary },
  { weight: 3, arbitrary: nestedArbitrary },
  { weight: 1, arbitrary: fc.constantFrom("", "", "# a comment", "  ", "\t", "- item", "...") },
);

const documentArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(lineArbitrary, { minLength: 0, maxLength: 8 }).map((lines) => lines.join("\n")),
  },
  // The common shape with one nested block, so blocks are often taken and compared.
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.array(simpleEntryArbitrary, { maxLength: 3 }),
        nestedArbitrary,
        fc.array(simpleEntryArbitrary, { maxLength: 2 }),
      )
      .map(([before, block, after]) => [...before, block, ...after].join("\n")),
  },
  // Duplicates: one entry twice, at the top or inside a block.
  {
    weight: 1,
    arbitrary: fc
      .tuple(entryArbitrary, fc.array(lineArbitrary, { maxLength: 3 }))
      .map(([entry, others]) => [entry, ...others, entry].join("\n")),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(entryArbitrary, fc.integer({ min: 1, max: 3 }))
      .map(([entry, indent]) => `metadata:\n${" ".repeat(indent)}${entry}\n${" ".repeat(indent)}${entry}`),
  },
);

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
