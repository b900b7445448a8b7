import fc from "fast-check";

/**
 * Front matter generators for the fast-path property tests, biased towards YAML's sharp
 * edges: keys and values the core schema reads as something other than text, indicators,
 * quotes, comments, odd spacing and indentation, block scalars of every header, and
 * duplicate keys. Shared by the line-based fast path's test and the scanner's.
 */

export const keyArbitrary = fc.oneof(
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

export const fragmentArbitrary = fc.oneof(
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

export const plainValueArbitrary = fc
  .array(fragmentArbitrary, { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(""));

export const valueArbitrary = fc.oneof(
  { weight: 6, arbitrary: plainValueArbitrary },
  { weight: 2, arbitrary: plainValueArbitrary.map((value) => `"${value}"`) },
  { weight: 2, arbitrary: plainValueArbitrary.map((value) => `'${value}'`) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "  trailing  ", '"unterminated', "'mixed\"") },
);

/** An entry the fast path should usually take: a safe key and a value of ordinary words. */
export const simpleEntryArbitrary = fc
  .tuple(
    fc.constantFrom("author", "version", "skillgate.tier", "skillgate.execution", "a.b-c_d", "k"),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("read", "Two words here", "é中😀", "x:y", "a#b", "1.0 beta") },
      { weight: 1, arbitrary: plainValueArbitrary },
    ),
  )
  .map(([key, value]) => `${key}: ${value}`);

/** `key: value` with a choice of spacing, including none and a tab after the colon. */
export const entryArbitrary = fc
  .tuple(
    keyArbitrary,
    fc.constantFrom(": ", ": ", ": ", ":  ", ":", ":\t"),
    valueArbitrary,
    fc.constantFrom("", "", " ", "  "),
  )
  .map(([key, separator, value, trailing]) => `${key}${separator}${value}${trailing}`);

/** A nested block: an indent, entries mostly at that indent, sometimes one off or blank. */
export const nestedArbitrary = fc
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
export const blockLineArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("one two", "x: y", "a # b", "- item", "é中😀", '"quoted"', "#hash"),
  },
  { weight: 2, arbitrary: plainValueArbitrary },
  { weight: 1, arbitrary: fc.constantFrom("", "trailing ", " extra", "\ttab") },
);

export const blockArbitrary = fc
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

export const lineArbitrary = fc.oneof(
  { weight: 4, arbitrary: entryArbitrary },
  { weight: 2, arbitrary: blockArbitrary },
  { weight: 2, arbitrary: simpleEntryArbitrary },
  { weight: 3, arbitrary: nestedArbitrary },
  { weight: 1, arbitrary: fc.constantFrom("", "", "# a comment", "  ", "\t", "- item", "...") },
);

export const documentArbitrary = fc.oneof(
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
