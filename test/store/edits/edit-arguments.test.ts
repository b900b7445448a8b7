import { describe, expect, it } from "vitest";
import { readDraftArguments } from "../../../src/store/drafts/index.js";
import { InvalidToolArgumentsError, readEditArguments } from "../../../src/store/edits/index.js";
import { findDuplicateKey } from "../../../src/store/edits/json-duplicate-keys.js";

/**
 * edit_skill arguments are read once and strictly: case-sensitive names, no repeated field
 * (also in JSON text, where JSON.parse would keep the last silently), no unknown field, no
 * prototype keys, each value of its type. Every refusal is `invalid_edit_arguments` with a
 * message that starts with HOST: and names the field.
 */

const valid = {
  skillName: "disk-report",
  files: { "scripts/a.py": "print(1)\n" },
  reason: "Fix the output.",
};

function refusedWith(raw: unknown): InvalidToolArgumentsError {
  try {
    readEditArguments(raw);
  } catch (error) {
    if (error instanceof InvalidToolArgumentsError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("readEditArguments", () => {
  it("reads an object and the same arguments as JSON text to the same result", () => {
    const read = readEditArguments({ ...valid, tier: "change", allowedDomains: ["api.example.com"] });
    expect(read).toEqual({
      skillName: "disk-report",
      files: { "scripts/a.py": "print(1)\n" },
      removeFiles: [],
      reason: "Fix the output.",
      tier: "change",
      allowedDomains: ["api.example.com"],
    });
    expect(
      readEditArguments(JSON.stringify({ ...valid, tier: "change", allowedDomains: ["api.example.com"] })),
    ).toEqual(read);
  });

  it("stores a schema given as an object or as JSON text in compact form", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    expect(readEditArguments({ ...valid, parametersSchema: schema }).parametersSchema).toBe(
      JSON.stringify(schema),
    );
    expect(
      readEditArguments({ ...valid, parametersSchema: JSON.stringify(schema, null, 2) }).parametersSchema,
    ).toBe(JSON.stringify(schema));
  });

  it("reading what it read gives the same result (a stored plan is checked this way)", () => {
    const read = readEditArguments({
      ...valid,
      parametersSchema: { type: "object" },
      removeFiles: ["old.md"],
    });
    expect(readEditArguments(read)).toEqual(read);
  });

  const protoObject = JSON.parse('{"skillName":"a","reason":"r","files":{},"__proto__":{"polluted":true}}');
  const getter = { ...valid };
  Object.defineProperty(getter, "reason", { get: () => "surprise", enumerable: true });

  const table: { title: string; raw: unknown; field: string | undefined; says: RegExp }[] = [
    {
      title: "a name in the wrong case",
      raw: { ...valid, SkillName: "x" },
      field: "SkillName",
      says: /did you mean "skillName"/,
    },
    {
      title: "Files for files",
      raw: { skillName: "a", reason: "r", Files: {} },
      field: "Files",
      says: /case-sensitive/,
    },
    {
      title: "an unknown field",
      raw: { ...valid, force: true },
      field: "force",
      says: /unknown; the fields are skillName/,
    },
    {
      title: "a repeated key in JSON text",
      raw: '{"skillName":"disk-report","reason":"r","files":{"a.md":"x"},"skillName":"other"}',
      field: "skillName",
      says: /repeat the key "skillName"/,
    },
    {
      title: "a repeated key spelled with an escape",
      raw: '{"skillName":"a","reason":"r","files":{"a.md":"x"},"skill\\u004eame":"b"}',
      field: "skillName",
      says: /repeat the key "skillName"/,
    },
    {
      title: "a repeated path inside files",
      raw: '{"skillName":"a","reason":"r","files":{"a.md":"one","a.md":"two"}}',
      field: "files",
      says: /"a\.md" inside "files"/,
    },
    {
      title: "a repeated key inside a schema given as text",
      raw: { ...valid, parametersSchema: '{"type":"object","type":"string"}' },
      field: "parametersSchema",
      says: /repeats the key "type"/,
    },
    {
      title: "__proto__ at the top",
      raw: protoObject,
      field: "__proto__",
      says: /may not use the key "__proto__"/,
    },
    {
      title: "constructor as a path",
      raw: '{"skillName":"a","reason":"r","files":{"constructor":"x"}}',
      field: "files",
      says: /"constructor"/,
    },
    {
      title: "prototype inside a schema",
      raw: { ...valid, parametersSchema: { type: "object", properties: { prototype: { type: "string" } } } },
      field: "parametersSchema",
      says: /"prototype"/,
    },
    { title: "a getter instead of a value", raw: getter, field: undefined, says: /must be a JSON object/ },
    {
      title: "a class instance",
      raw: new Map([["skillName", "a"]]),
      field: undefined,
      says: /must be a JSON object/,
    },
    { title: "an array", raw: [valid], field: undefined, says: /not an array/ },
    { title: "a number", raw: 42, field: undefined, says: /not a number/ },
    { title: "text that is not JSON", raw: "skillName=a", field: undefined, says: /isn't valid JSON/ },
    {
      title: "skillName as a number",
      raw: { ...valid, skillName: 7 },
      field: "skillName",
      says: /must be text, not a number/,
    },
    {
      title: "files as a list",
      raw: { ...valid, files: ["a.md"] },
      field: "files",
      says: /mapping paths to text/,
    },
    {
      title: "file content as a number",
      raw: { ...valid, files: { "a.md": 1 } },
      field: "files",
      says: /files\["a\.md"\] must be text/,
    },
    {
      title: "removeFiles as text",
      raw: { ...valid, removeFiles: "a.md" },
      field: "removeFiles",
      says: /list of texts/,
    },
    {
      title: "removeFiles twice the same",
      raw: { ...valid, removeFiles: ["b.md", "b.md"] },
      field: "removeFiles",
      says: /twice/,
    },
    {
      title: "an unknown tier",
      raw: { ...valid, tier: "admin" },
      field: "tier",
      says: /read, change, destructive/,
    },
    {
      title: "an unknown execution",
      raw: { ...valid, execution: "docker" },
      field: "execution",
      says: /one of local/,
    },
    {
      title: "a host that is not one",
      raw: { ...valid, allowedDomains: ["*.example.com"] },
      field: "allowedDomains",
      says: /not a host/,
    },
    {
      title: "a schema that is not an object schema",
      raw: { ...valid, parametersSchema: { type: "array" } },
      field: "parametersSchema",
      says: /"type": "object"/,
    },
    {
      title: "no skillName",
      raw: { reason: "r", files: { "a.md": "x" } },
      field: "skillName",
      says: /needs the argument "skillName"/,
    },
    {
      title: "no reason",
      raw: { skillName: "a", files: { "a.md": "x" } },
      field: "reason",
      says: /needs the argument "reason"/,
    },
    {
      title: "an invalid skill name",
      raw: { ...valid, skillName: "../etc" },
      field: "skillName",
      says: /not a valid skill name/,
    },
    {
      title: "a path leaving the skill",
      raw: { ...valid, files: { "../x": "y" } },
      field: "files",
      says: /files\["\.\.\/x"\]/,
    },
    {
      title: "removing SKILL.md",
      raw: { ...valid, removeFiles: ["SKILL.md"] },
      field: "removeFiles",
      says: /cannot remove SKILL\.md/,
    },
    {
      title: "writing and removing one file",
      raw: { ...valid, removeFiles: ["scripts/a.py"] },
      field: "removeFiles",
      says: /both writes and removes/,
    },
    {
      title: "no change at all",
      raw: { skillName: "a", reason: "r" },
      field: undefined,
      says: /changes nothing/,
    },
  ];

  it.each(table)("$title → invalid_edit_arguments", ({ raw, field, says }) => {
    const error = refusedWith(raw);
    expect(error.code).toBe("invalid_edit_arguments");
    expect(error.httpStatus).toBe(400);
    expect(error.message.startsWith("HOST: ")).toBe(true);
    expect(error.message).toMatch(says);
    expect(error.data.field).toBe(field);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("findDuplicateKey", () => {
  it("finds repeats at any depth, and none where keys only look alike", () => {
    expect(findDuplicateKey('{"a":1,"b":{"c":1,"c":2}}')).toEqual({ key: "c", path: ["b"] });
    expect(findDuplicateKey('{"a":[{"x":1},{"x":2}],"b":"\\"a\\":"}')).toBeUndefined();
    expect(findDuplicateKey('{"a":{"a":1},"A":1}')).toBeUndefined();
    expect(findDuplicateKey(`${"[".repeat(10_000)}${"]".repeat(10_000)}`)).toBeUndefined();
  });
});

describe("readDraftArguments", () => {
  const draft = {
    name: "disk-report",
    description: "Reports disk use.",
    body: "Run it.\n",
    sourceChats: ["c1"],
    rationale: "Asked twice.",
  };

  it("reads the draft_skill fields strictly too", () => {
    expect(readDraftArguments(JSON.stringify({ ...draft, update: true }))).toEqual({
      ...draft,
      update: true,
    });
    for (const [raw, field] of [
      [{ ...draft, Name: "x" }, "Name"],
      ['{"name":"a","name":"b"}', "name"],
      [{ ...draft, update: "yes" }, "update"],
      [{ ...draft, tier: "root" }, "tier"],
      [{ ...draft, sourceChats: undefined }, "sourceChats"],
    ] as const) {
      let caught: unknown;
      try {
        readDraftArguments(raw);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidToolArgumentsError);
      expect(caught).toMatchObject({ code: "invalid_draft_arguments", data: { field } });
      expect((caught as Error).message.startsWith("HOST: ")).toBe(true);
    }
  });
});
