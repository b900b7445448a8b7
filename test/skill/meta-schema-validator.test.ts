import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { GENERATED_FILE, generatedText } from "../../scripts/generate-schema-validators.mjs";
import { readParametersSchema } from "../../src/skill/parameters-schema.js";
import { jsonSchemaProblem } from "../../src/skill/schema-check.js";
import { checkAgainstSchema } from "../../src/tools/input.js";

/** The JSON Schema 2020-12 meta-schema's validator is compiled ahead of time and agrees with Ajv's own. */

const SCHEMAS: ReadonlyArray<readonly [string, unknown]> = [
  ["an object schema", { type: "object" }],
  ["a full one", { type: "object", properties: { q: { type: "string", minLength: 1 } }, required: ["q"] }],
  ["a type that does not exist", { type: "objectx" }],
  ["a negative minLength", { type: "object", properties: { a: { type: "string", minLength: -1 } } }],
  ["required as text", { type: "object", required: "a" }],
  ["a bad $defs entry", { type: "object", $defs: { x: { type: 3 } } }],
  ["duplicate required names", { type: "object", required: ["a", "a"] }],
  ["an enum with no values", { type: "object", properties: { a: { enum: [] } } }],
  ["a boolean schema", true],
  ["a number", 3],
];

describe("the meta-schema validator compiled ahead of time", () => {
  it("is the text the generator writes from the installed ajv (run scripts/generate-schema-validators.mjs)", () => {
    expect(readFileSync(GENERATED_FILE, "utf8")).toBe(generatedText());
  });

  it.each(SCHEMAS)("answers as Ajv's validateSchema does: %s", (_label, schema) => {
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    const valid = ajv.validateSchema(schema as object) as boolean;
    expect(jsonSchemaProblem(schema)).toBe(valid ? undefined : ajv.errorsText(ajv.errors));
  });

  it("refuses a $schema other than 2020-12, as Ajv does", () => {
    expect(jsonSchemaProblem({ $schema: "http://json-schema.org/draft-07/schema#", type: "object" })).toMatch(
      /no schema with key or ref/,
    );
  });

  it("a declared parameters_schema that is not a schema is still a problem", () => {
    expect(readParametersSchema({ type: "object", required: "q" }).problem).toBe(
      "parameters_schema is not a valid JSON Schema: data/required must be array",
    );
  });

  it("a tool schema that is not a schema is reported by the call, not thrown", () => {
    const checked = checkAgainstSchema(
      { type: "object", properties: { a: { minLength: -1 } } },
      {},
      "the input",
    );
    expect(checked).toEqual({
      ok: false,
      message:
        "HOST: the schema for the input cannot be used (schema is invalid: data/properties/a/minLength must be >= 0); tell the skill's owner.",
    });
  });
});
