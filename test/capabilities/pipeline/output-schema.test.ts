import { describe, expect, it } from "vitest";
import { checkOutput, MAX_OUTPUT_BYTES } from "../../../src/capabilities/pipeline/output-schema.js";
import { provider } from "../helpers/memory-index.js";

describe("output schema", () => {
  const review = provider({ id: "code-review-skill" });

  it("passes an output that matches, with its size", () => {
    const output = { summary: "fine", findings: [] };
    expect(checkOutput(review, output)).toEqual({
      ok: true,
      value: { output, bytes: Buffer.byteLength(JSON.stringify(output)) },
    });
  });

  it("refuses an output that breaks its schema with output_invalid", () => {
    const result = checkOutput(review, { summary: 3 });
    expect(!result.ok && result.refusal.code).toBe("output_invalid");
    expect(!result.ok && result.refusal.message).toMatch(
      /^HOST: provider "code-review-skill" answered outside its output schema/,
    );
  });

  it("refuses an oversize output with output_invalid", () => {
    const result = checkOutput(review, { summary: "x".repeat(MAX_OUTPUT_BYTES), findings: [] });
    expect(!result.ok && result.refusal.code).toBe("output_invalid");
  });

  it("drops prototype-polluting keys from the copy", () => {
    const hostile = JSON.parse('{"summary":"s","findings":[],"__proto__":{"polluted":true}}') as unknown;
    const result = checkOutput(review, hostile);
    expect(result.ok && Object.keys(result.value.output as object)).toEqual(["summary", "findings"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("refuses when the provider has no output schema", () => {
    const none = provider({ id: "bare", outputSchema: undefined as never });
    expect(checkOutput(none, {})).toMatchObject({
      ok: false,
      refusal: { code: "capability_missing_schema" },
    });
  });
});
