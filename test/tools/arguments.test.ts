import { describe, expect, it } from "vitest";
import { ARGUMENT_MESSAGES, MAX_ARGUMENT_TEXT_BYTES, normaliseArguments } from "../../src/tools/arguments.js";

const ARRAY =
  'HOST: arguments was an array; send an object with a "node" key, and the script\'s command-line arguments as its "argv" list, such as {"argv": ["input.pdf"]}.';

describe("run_skill_script arguments (docs/tools.md, Script arguments)", () => {
  const rows: Array<[string, unknown, unknown, "node" | "sandbox" | "queue", unknown]> = [
    [
      "an object with node runs unchanged",
      { node: "lab01", path: "/x" },
      undefined,
      "node",
      { ok: true, arguments: { node: "lab01", path: "/x" }, repairs: [] },
    ],
    [
      "text holding an object runs, repaired",
      '{"node":"lab01","n":1}',
      undefined,
      "node",
      { ok: true, arguments: { node: "lab01", n: 1 }, repairs: ["string"] },
    ],
    ["an array value", ["a"], undefined, "node", { ok: false, message: ARRAY }],
    ["text holding an array", '["a"]', undefined, "sandbox", { ok: false, message: ARRAY }],
    [
      "a number",
      42,
      undefined,
      "sandbox",
      { ok: false, message: "HOST: arguments was a number; send a JSON object." },
    ],
    [
      "text holding a number",
      "42",
      undefined,
      "sandbox",
      { ok: false, message: "HOST: arguments was a number; send a JSON object." },
    ],
    [
      "a boolean",
      true,
      undefined,
      "sandbox",
      { ok: false, message: "HOST: arguments was a boolean; send a JSON object." },
    ],
    ["null is {}", null, undefined, "sandbox", { ok: true, arguments: {}, repairs: [] }],
    ["no arguments is {}", undefined, undefined, "queue", { ok: true, arguments: {}, repairs: [] }],
    [
      "null for a node skill gets the no-node message",
      null,
      undefined,
      "node",
      {
        ok: false,
        message:
          'HOST: arguments has no "node" key; add the server to run on, such as {"node": "homelab01", ...}.',
      },
    ],
    [
      "text that isn't JSON",
      "path=/x",
      undefined,
      "sandbox",
      {
        ok: false,
        message:
          "HOST: arguments was a string that isn't valid JSON; send a JSON object, not a quoted string.",
      },
    ],
    [
      "a quoted string",
      '"hello"',
      undefined,
      "sandbox",
      {
        ok: false,
        message:
          "HOST: arguments was a string that isn't valid JSON; send a JSON object, not a quoted string.",
      },
    ],
    [
      "a top-level node moves inside",
      { path: "/x" },
      "lab01",
      "node",
      { ok: true, arguments: { path: "/x", node: "lab01" }, repairs: ["node"] },
    ],
    [
      "text and a top-level node: both repairs",
      '{"path":"/x"}',
      "lab01",
      "node",
      { ok: true, arguments: { path: "/x", node: "lab01" }, repairs: ["string", "node"] },
    ],
    [
      "the same node twice is fine",
      { node: "lab01" },
      "lab01",
      "node",
      { ok: true, arguments: { node: "lab01" }, repairs: [] },
    ],
    [
      "two different nodes",
      { node: "a" },
      "b",
      "node",
      {
        ok: false,
        message:
          'HOST: arguments.node ("a") and node ("b") disagree; name the server once, inside arguments.',
      },
    ],
    [
      "node isn't text",
      { node: 7 },
      undefined,
      "node",
      {
        ok: false,
        message: 'HOST: arguments.node must be the server\'s name as a string, such as "homelab01".',
      },
    ],
    [
      "a top-level node that isn't text",
      {},
      7,
      "node",
      {
        ok: false,
        message: 'HOST: arguments.node must be the server\'s name as a string, such as "homelab01".',
      },
    ],
    [
      "no node for a node skill",
      { path: "/x" },
      undefined,
      "node",
      {
        ok: false,
        message:
          'HOST: arguments has no "node" key; add the server to run on, such as {"node": "homelab01", ...}.',
      },
    ],
    [
      "an argv passes with the rest, for the tool to take apart",
      '{"argv":["input.pdf","-o","out"],"n":1}',
      undefined,
      "sandbox",
      { ok: true, arguments: { argv: ["input.pdf", "-o", "out"], n: 1 }, repairs: ["string"] },
    ],
    [
      "an argv next to a node",
      { node: "lab01", argv: [] },
      undefined,
      "node",
      { ok: true, arguments: { node: "lab01", argv: [] }, repairs: [] },
    ],
    [
      "a sandbox skill needs no node",
      { path: "/x" },
      undefined,
      "sandbox",
      { ok: true, arguments: { path: "/x" }, repairs: [] },
    ],
  ];

  it.each(rows)("%s", (_title, raw, node, execution, expected) => {
    expect(normaliseArguments(raw, node, execution)).toEqual(expected);
  });

  it("every refusal starts with HOST:", () => {
    for (const message of Object.values(ARGUMENT_MESSAGES)) {
      const text = typeof message === "function" ? message("a", "b") : message;
      expect(text.startsWith("HOST: ")).toBe(true);
    }
  });
});

describe("hostile argv (docs/tools.md, Command-line arguments)", () => {
  const rows: Array<[string, unknown, string, string]> = [
    [
      "argv as one string",
      "input.pdf out.pdf",
      "argv_not_list",
      'HOST: arguments.argv must be a list of strings, the script\'s command-line arguments, such as {"argv": ["input.pdf"]}. [argv_not_list]',
    ],
    [
      "argv as an object",
      { 0: "a" },
      "argv_not_list",
      'HOST: arguments.argv must be a list of strings, the script\'s command-line arguments, such as {"argv": ["input.pdf"]}. [argv_not_list]',
    ],
    [
      "a number in argv",
      ["-n", 10],
      "argv_not_text",
      'HOST: arguments.argv[1] is a number; every item must be a string, such as "10" for 10. [argv_not_text]',
    ],
    [
      "null in argv",
      [null],
      "argv_not_text",
      'HOST: arguments.argv[0] is null; every item must be a string, such as "10" for 10. [argv_not_text]',
    ],
    [
      "a list in argv",
      [["a"]],
      "argv_not_text",
      'HOST: arguments.argv[0] is an array; every item must be a string, such as "10" for 10. [argv_not_text]',
    ],
    [
      "an object in argv",
      [{}],
      "argv_not_text",
      'HOST: arguments.argv[0] is an object; every item must be a string, such as "10" for 10. [argv_not_text]',
    ],
    [
      "a NUL in an item",
      ["ok", "a\u0000--evil"],
      "argv_nul",
      "HOST: arguments.argv[1] holds a NUL character, which a command-line argument cannot hold; remove it. [argv_nul]",
    ],
    [
      "a lone surrogate",
      ["\ud800"],
      "argv_not_unicode",
      "HOST: arguments.argv[0] is not valid Unicode text; send plain text. [argv_not_unicode]",
    ],
    [
      "too many items",
      Array.from({ length: 257 }, () => "x"),
      "argv_too_many",
      "HOST: arguments.argv has 257 items; a script takes at most 256. Send fewer, or pass a file that lists them. [argv_too_many]",
    ],
    [
      "too many bytes",
      ["a".repeat(20_000), "b".repeat(20_000)],
      "argv_too_long",
      "HOST: arguments.argv holds 40000 bytes; a script takes at most 32 KiB of command-line arguments. Send less, or pass a file that holds it. [argv_too_long]",
    ],
  ];

  it.each(rows)("%s", (_title, argv, code, message) => {
    for (const execution of ["sandbox", "local", "queue"] as const)
      expect(normaliseArguments({ argv, n: 1 }, undefined, execution)).toEqual({ ok: false, message, code });
  });

  it("the same refusals for argv inside arguments sent as text", () => {
    expect(normaliseArguments('{"argv":["a\\u0000"]}', undefined, "sandbox")).toMatchObject({
      ok: false,
      code: "argv_nul",
    });
    expect(normaliseArguments('{"argv":"a"}', undefined, "sandbox")).toMatchObject({
      ok: false,
      code: "argv_not_list",
    });
  });

  it("a bare array of strings, argv sent the wrong way, is refused naming argv", () => {
    expect(normaliseArguments(["input.pdf"], undefined, "sandbox")).toEqual({ ok: false, message: ARRAY });
    expect(ARRAY).toContain('"argv"');
  });
});

describe("hostile arguments", () => {
  it("text over 32 KiB is refused unread, 10 MB included", () => {
    const big = JSON.stringify({ x: "a".repeat(MAX_ARGUMENT_TEXT_BYTES) });
    expect(normaliseArguments(big, undefined, "sandbox")).toEqual({
      ok: false,
      message: ARGUMENT_MESSAGES.tooLong,
    });
    expect(normaliseArguments("x".repeat(10 * 1024 * 1024), undefined, "sandbox")).toEqual({
      ok: false,
      message: ARGUMENT_MESSAGES.tooLong,
    });
  });

  it("deep nesting is refused, as an object and as text, without overflowing the stack", () => {
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 100_000; level += 1) deep = { inner: deep };
    expect(normaliseArguments(deep, undefined, "sandbox")).toEqual({
      ok: false,
      message: ARGUMENT_MESSAGES.tooDeep,
    });
    const text = `${'{"a":'.repeat(2000)}1${"}".repeat(2000)}`;
    expect(normaliseArguments(text, undefined, "sandbox")).toEqual({
      ok: false,
      message: ARGUMENT_MESSAGES.tooDeep,
    });
  });

  it("prototype-polluting keys never get through, at any depth", () => {
    const result = normaliseArguments(
      '{"__proto__":{"polluted":true},"a":{"constructor":{"prototype":{"x":1}},"ok":1}}',
      undefined,
      "sandbox",
    );
    expect(result).toEqual({ ok: true, arguments: { a: { ok: 1 } }, repairs: ["string"] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const object = JSON.parse('{"__proto__":{"polluted":true},"b":2}') as unknown;
    expect(normaliseArguments(object, undefined, "sandbox")).toEqual({
      ok: true,
      arguments: { b: 2 },
      repairs: [],
    });
  });

  it("huge numbers become null rather than Infinity", () => {
    expect(
      normaliseArguments('{"n":1e400,"m":-1e999,"k":12345678901234567890}', undefined, "sandbox"),
    ).toEqual({
      ok: true,
      arguments: { n: null, m: null, k: 12345678901234567000 },
      repairs: ["string"],
    });
  });

  it("invalid UTF-16 (a lone surrogate) is carried as data, not a crash", () => {
    const result = normaliseArguments({ text: "a\ud800b" }, undefined, "sandbox");
    expect(result.ok).toBe(true);
    expect(JSON.stringify(result)).toContain("\\ud800");
  });

  it("functions, symbols and other non-JSON values are dropped", () => {
    expect(
      normaliseArguments({ f: () => 1, s: Symbol("x"), ok: [1, undefined] }, undefined, "sandbox"),
    ).toEqual({
      ok: true,
      arguments: { ok: [1, null] },
      repairs: [],
    });
  });
});
