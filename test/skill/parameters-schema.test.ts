import { describe, expect, it } from "vitest";
import { readGovernance } from "../../src/skill/governance.js";
import { loadSkillFolder } from "../../src/skill/load-skill.js";
import {
  ARGV_PROPERTY,
  compactSchema,
  effectiveSchema,
  type ParametersSchema,
  readParametersSchema,
} from "../../src/skill/parameters-schema.js";
import { skillFolder, skillText } from "./skill-folders.js";

const NODE = { type: "string", description: "The managed server to run on, by name." };
const ARGV = ARGV_PROPERTY;

function loadSchema(metadataLines: string) {
  const text = skillText(`name: args\ndescription: d\nmetadata:\n${metadataLines}`);
  return loadSkillFolder(skillFolder("args", text), { source: "test", mode: "strict" });
}

describe("parameters_schema", () => {
  it("reads a YAML mapping from SKILL.md", () => {
    const loaded = loadSchema(
      "  parameters_schema:\n    type: object\n    properties:\n      path: {type: string}\n    required: [path]",
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.governance.parametersSchema).toEqual({
      kind: "shared",
      schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    });
  });

  it("reads JSON text from SKILL.md", () => {
    const loaded = loadSchema(
      `  parameters_schema: '{"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}'`,
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.governance.parametersSchema).toEqual({
      kind: "shared",
      schema: { type: "object", properties: { n: { type: "integer", minimum: 1 } } },
    });
  });

  it("reads a map from script path to schema", () => {
    const loaded = loadSchema(
      [
        "  parameters_schema:",
        "    scripts/verify.py: {type: object, properties: {strict: {type: boolean}}}",
        "    scripts/clean.sh: {type: object}",
      ].join("\n"),
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.governance.parametersSchema).toEqual({
      kind: "per-script",
      schemas: {
        "scripts/verify.py": { type: "object", properties: { strict: { type: "boolean" } } },
        "scripts/clean.sh": { type: "object" },
      },
    });
  });

  it.each([
    ["no type at all", { properties: { a: { type: "string" } } }],
    ['"type": "array"', { type: "array" }],
    ['"type": ["object"]', { type: ["object"] }],
    ["an empty mapping", {}],
    ["a list", [{ type: "object" }]],
    ["a number", 5],
    ["invalid JSON text", '{"type": "object",'],
    ["JSON text holding a list", '[{"type": "object"}]'],
    ["a schema error inside properties", { type: "object", properties: { a: { type: 5 } } }],
    ["a schema error in JSON text", '{"type": "object", "properties": {"a": {"type": 5}}}'],
    ["required that is not a list", { type: "object", required: "a" }],
    ["an unknown $schema", { $schema: "http://json-schema.org/draft-07/schema#", type: "object" }],
    ["a per-script map with a bad schema", { "scripts/a.py": { type: "string" } }],
    ["a per-script map with a non-object", { "scripts/a.py": "x" }],
    ["a script path that climbs out", { "../a.py": { type: "object" } }],
    ["an absolute script path", { "/bin/sh": { type: "object" } }],
    ["a script path with a backslash", { "scripts\\a.py": { type: "object" } }],
    ["a script path with an empty part", { "scripts//a.py": { type: "object" } }],
    [
      "nesting past the depth limit",
      JSON.parse(`${'{"type":"object","properties":{"a":'.repeat(40)}{}${"}}".repeat(40)}`),
    ],
  ])("refuses %s (invalid_parameters_schema)", (_label, value) => {
    const result = readParametersSchema(value);
    expect(result.schema).toEqual({ kind: "none" });
    expect(result.problem).toEqual(expect.stringContaining("parameters_schema"));
    const governance = readGovernance({ parameters_schema: value }, { path: "SKILL.md", mode: "strict" });
    expect(governance.diagnostics).toEqual([
      expect.objectContaining({ code: "invalid_parameters_schema", field: "metadata.parameters_schema" }),
    ]);
  });

  it("accepts the 2020-12 $schema", () => {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" };
    expect(readParametersSchema(schema)).toEqual({ schema: { kind: "shared", schema } });
  });

  it("drops prototype-polluting keys from a declared schema", () => {
    const result = readParametersSchema(
      '{"type": "object", "__proto__": {"polluted": true}, "properties": {}}',
    );
    expect(result.problem).toBeUndefined();
    expect(result.schema).toEqual({ kind: "shared", schema: { type: "object", properties: {} } });
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  });

  it("a refused schema marks the loaded skill", () => {
    const loaded = loadSchema("  parameters_schema: {properties: {a: {type: string}}}");
    expect(loaded.skill).toBeDefined();
    expect(loaded.governanceInvalid).toBe(true);
    expect(loaded.diagnostics.map((item) => item.code)).toEqual(["invalid_parameters_schema"]);
  });

  it("compactSchema has no insignificant white space", () => {
    expect(compactSchema({ type: "object", properties: { a: { type: "string" } } })).toBe(
      '{"type":"object","properties":{"a":{"type":"string"}}}',
    );
  });
});

describe("effectiveSchema (docs/skills.md, Governance keys: the mode's default)", () => {
  const none: ParametersSchema = { kind: "none" };
  const declared: ParametersSchema = {
    kind: "shared",
    schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  };

  it("node, nothing declared: an object with a required node string and an optional argv", () => {
    expect(effectiveSchema(none, "node", "scripts/a.sh")).toEqual({
      type: "object",
      properties: { argv: ARGV, node: NODE },
      required: ["node"],
    });
  });

  it("node, declared: the node property and requirement are added", () => {
    expect(effectiveSchema(declared, "node", "scripts/a.sh")).toEqual({
      type: "object",
      properties: { path: { type: "string" }, node: NODE },
      required: ["path", "node"],
    });
  });

  it("node, declared with node already required: not required twice", () => {
    const own: ParametersSchema = { kind: "shared", schema: { type: "object", required: ["node"] } };
    expect(effectiveSchema(own, "node", "x")).toEqual({
      type: "object",
      properties: { node: NODE },
      required: ["node"],
    });
  });

  it("queue, nothing declared: an object with an optional argv, a list of strings", () => {
    expect(effectiveSchema(none, "queue", "scripts/a.sh")).toEqual({
      type: "object",
      properties: { argv: ARGV },
    });
    expect(ARGV).toMatchObject({ type: "array", items: { type: "string" } });
  });

  it("sandbox, nothing declared: an object with an optional argv and an optional node string", () => {
    const schema = effectiveSchema(none, "sandbox", "scripts/a.sh");
    expect(schema).toEqual({ type: "object", properties: { argv: ARGV, node: NODE } });
    expect(schema.required).toBeUndefined();
  });

  it("local, nothing declared: an object with an optional argv", () => {
    expect(effectiveSchema(none, "local", "scripts/a.sh")).toEqual({
      type: "object",
      properties: { argv: ARGV },
    });
  });

  it("a declared schema is used as it is outside node mode", () => {
    for (const mode of ["queue", "sandbox", "local"] as const) {
      expect(effectiveSchema(declared, mode, "scripts/a.sh")).toEqual(
        declared.kind === "shared" ? declared.schema : {},
      );
    }
  });

  it("a per-script map applies only to its script; others get the mode default", () => {
    const perScript: ParametersSchema = {
      kind: "per-script",
      schemas: { "scripts/verify.py": { type: "object", properties: { strict: { type: "boolean" } } } },
    };
    expect(effectiveSchema(perScript, "queue", "scripts/verify.py")).toEqual({
      type: "object",
      properties: { strict: { type: "boolean" } },
    });
    expect(effectiveSchema(perScript, "queue", "scripts/other.py")).toEqual({
      type: "object",
      properties: { argv: ARGV },
    });
    expect(effectiveSchema(perScript, "node", "scripts/other.py")).toEqual({
      type: "object",
      properties: { argv: ARGV, node: NODE },
      required: ["node"],
    });
  });
});
