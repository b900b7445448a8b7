import { describe, expect, it } from "vitest";
import { byMessage, outputLines, runScript, type ScriptRun } from "./run-script.js";

const SCRIPT = "scripts/json_tools.py";

function run(args: unknown): ScriptRun {
  const result = runScript("json-tools", SCRIPT, args);
  expect(result.leftInWorkingFolder).toEqual([]);
  expect(result.changedSkillFolder).toBe(false);
  expect(result.stderr).toBe("");
  return result;
}

describe("json-tools validate", () => {
  it("describes a valid document", () => {
    const result = run({ operation: "validate", document: '{"a": {"b": [1]}, "c": null}' });
    expect(result.status).toBe(0);
    expect(outputLines(result)).toEqual(["VALID: an object with 2 keys, nesting depth 3"]);
  });

  it("points at a syntax error with its line, column and a caret", () => {
    const result = run({ operation: "validate", document: '{\n  "hosts": ["a", "b",]\n}' });
    expect(result.status).toBe(0);
    const [first = "", excerpt, caret = ""] = outputLines(result);
    // Python 3.13 names the trailing comma (column 21); older versions the bracket after it (column 22).
    const position = /^INVALID: .+ at line 2 column (2[12])$/.exec(first);
    expect(position, first).not.toBeNull();
    expect(excerpt).toBe('    "hosts": ["a", "b",]');
    expect(caret).toBe(`${" ".repeat(1 + Number(position?.[1]))}^`);
  });

  it.each([
    ["NaN", '{"n": NaN}', "INVALID: NaN is not valid JSON"],
    ["Infinity", "[Infinity]", "INVALID: Infinity is not valid JSON"],
    ["empty text", "", "INVALID: Expecting value at line 1 column 1"],
    [
      "100,000 nested arrays",
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      "INVALID: the document nests too deeply to read",
    ],
  ])("reports %s as invalid without failing", (_label, document, first) => {
    const result = run({ operation: "validate", document });
    expect(result.status).toBe(0);
    expect(outputLines(result)[0]).toBe(first);
  });

  it("warns about keys repeated in one object", () => {
    const result = run({ operation: "validate", document: '{"a": 1, "a": 2}' });
    expect(outputLines(result)).toEqual([
      "VALID: an object with 1 key, nesting depth 1",
      'WARNING: repeated keys "a"; parsers disagree on which value wins',
    ]);
  });
});

describe("json-tools format", () => {
  it("pretty-prints with two spaces and keeps non-ASCII text", () => {
    const result = run({ operation: "format", document: '{"b":[1,2],"a":"é"}' });
    expect(result.stdout).toBe('{\n  "b": [\n    1,\n    2\n  ],\n  "a": "é"\n}\n');
  });

  it("prints compact, sorted JSON with indent 0 and sort_keys", () => {
    const result = run({
      operation: "format",
      document: { b: 1, a: { d: 2, c: 3 } },
      indent: 0,
      sort_keys: true,
    });
    expect(result.stdout).toBe('{"a":{"c":3,"d":2},"b":1}\n');
  });

  it("clips output past 100,000 characters and says how much is left", () => {
    const document = JSON.stringify(["x".repeat(150_000)]);
    const lines = outputLines(run({ operation: "format", document, indent: 0 }));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toHaveLength(100_000);
    expect(lines[1]).toBe(`...[output clipped: ${document.length - 100_000} more characters]`);
  });
});

describe("json-tools query", () => {
  const document = '{"items": [{"id": 7, "tags": ["a"]}, {"id": 9}], "key.with.dots": true, "n": 1}';

  it.each([
    ["items[0].id", "7"],
    ["items[-1]", '{\n  "id": 9\n}'],
    ["items.1.id", "9"],
    ['$["key.with.dots"]', "true"],
    ["$.n", "1"],
    ["items[0].tags", '[\n  "a"\n]'],
  ])("%s gives the value as JSON", (path, value) => {
    const result = run({ operation: "query", document, path });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${value}\n`);
  });

  it("lists every match of a * with its location", () => {
    const result = run({ operation: "query", document, path: "items[*].id" });
    expect(outputLines(result)).toEqual(["2 values matched", "$.items[0].id = 7", "$.items[1].id = 9"]);
  });

  it.each([
    ["items[0].name", 'ERROR: $.items[0] has no key "name"; its keys are: "id", "tags"'],
    ["items[5]", "ERROR: $.items has 2 items; index 5 is out of range"],
    ["n.x", 'ERROR: $.n is a number, not an object; it has no key "x"'],
    ["items[*].tags", 'ERROR: $.items[1] has no key "tags"; its keys are: "id"'],
    ["items[0", 'ERROR: path "items[0" cannot be read at character 6'],
  ])("a path that does not resolve (%s) fails with what exists", (path, message) => {
    const result = run({ operation: "query", document, path });
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message)).toBe(true);
  });
});

describe("json-tools diff", () => {
  it("says when two documents hold the same data, whatever their formatting", () => {
    const result = run({ operation: "diff", document: '{"a": [1, 2]}', other: { a: [1, 2] } });
    expect(outputLines(result)).toEqual(["EQUAL: the documents hold the same data"]);
  });

  it("lists additions, removals and changes with paths, telling true from 1", () => {
    const result = run({
      operation: "diff",
      document: '{"a": 1, "b": [1, 2], "c": true, "e": "x"}',
      other: '{"a": 2, "b": [1], "c": 1, "d": null, "e": "x"}',
    });
    expect(outputLines(result)).toEqual([
      "4 differences (document -> other; arrays compared by position)",
      "changed $.a: 1 -> 2",
      "removed $.b[1]: 2",
      "changed $.c: true (a boolean) -> 1 (a number)",
      "added   $.d: null",
    ]);
  });

  it("stops after 200 differences and says so", () => {
    const left = JSON.stringify(Array.from({ length: 300 }, (_, index) => index));
    const right = JSON.stringify(Array.from({ length: 300 }, (_, index) => index + 1));
    const lines = outputLines(run({ operation: "diff", document: left, other: right }));
    expect(lines[0]).toBe("at least 200 differences (document -> other; arrays compared by position)");
    expect(lines).toHaveLength(202);
    expect(lines[201]).toBe("...[stopped after 200 differences]");
  });
});

describe("json-tools refuses bad arguments", () => {
  it.each(
    byMessage([
      [
        { operation: "sort", document: "{}" },
        'ERROR: operation must be one of validate, format, query, diff (got "sort")',
      ],
      [{ operation: "format" }, "ERROR: format needs document, the JSON text to work on"],
      [
        { operation: "validate", document: { a: 1 } },
        "ERROR: validate needs document as JSON text (a string), not an object",
      ],
      [
        { operation: "format", document: 5 },
        "ERROR: document must be JSON text (a string) or an object or array, not a number",
      ],
      [
        { operation: "format", document: "{'a': 1}" },
        "ERROR: document is not valid JSON: Expecting property name",
      ],
      [{ operation: "query", document: "{}" }, 'ERROR: query needs path, a string such as "items[0].name"'],
      [{ operation: "diff", document: "{}" }, "ERROR: diff needs other, the second document"],
      [{ operation: "diff", document: "{}", other: "[" }, "ERROR: other is not valid JSON"],
      [
        { operation: "format", document: "{}", indent: 9 },
        "ERROR: indent must be a whole number from 0 (compact) to 8",
      ],
      [
        { operation: "format", document: "{}", indent: true },
        "ERROR: indent must be a whole number from 0 (compact) to 8",
      ],
      [{ operation: "format", document: "{}", sort_keys: "yes" }, "ERROR: sort_keys must be true or false"],
    ]),
  )("%s", (message, args) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message), result.stdout).toBe(true);
  });

  it("refuses arguments larger than 2 MiB", () => {
    const result = run({ operation: "validate", document: "x".repeat(2 * 1024 * 1024) });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe(`ERROR: arguments are larger than ${2 * 1024 * 1024} bytes\n`);
  });
});
