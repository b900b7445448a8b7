import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkInput } from "../../../src/capabilities/pipeline/input-schema.js";
import { schemaOf } from "../../../src/capabilities/pipeline/schema-source.js";
import { CODE_REVIEW_INPUT, provider } from "../helpers/memory-index.js";

describe("input schema", () => {
  const review = provider({ id: "code-review-skill" });

  it("passes the seed's payload", () => {
    expect(checkInput(review, { scope: "current_diff", severity: "major" })).toEqual({
      ok: true,
      value: true,
    });
  });

  it("refuses a payload outside the schema with input_invalid, naming the field", () => {
    const missing = checkInput(review, { severity: "major" });
    expect(!missing.ok && missing.refusal).toEqual({
      code: "input_invalid",
      message: 'HOST: payload is missing "scope".',
    });
    const wrong = checkInput(review, { scope: "everything" });
    expect(!wrong.ok && wrong.refusal.code).toBe("input_invalid");
    expect(!wrong.ok && wrong.refusal.message).toMatch(/^HOST: payload\.scope must be one of/);
  });

  it("never calls a provider without a usable schema: capability_missing_schema", () => {
    const none = provider({ id: "bare", inputSchema: undefined as never });
    expect(checkInput(none, {})).toMatchObject({ ok: false, refusal: { code: "capability_missing_schema" } });
    const unreadable = provider({
      id: "gone",
      inputSchema: { kind: "file", path: "/nonexistent/schema.json" },
    });
    expect(checkInput(unreadable, {})).toMatchObject({
      ok: false,
      refusal: { code: "capability_missing_schema" },
    });
  });

  it("reads a schema file once until it changes", () => {
    const folder = mkdtempSync(join(tmpdir(), "schema-"));
    const path = join(folder, "input.json");
    writeFileSync(path, JSON.stringify(CODE_REVIEW_INPUT));
    const ref = { kind: "file" as const, path };
    const first = schemaOf(ref);
    expect(schemaOf(ref)).toBe(first);
    const fromFile = provider({ id: "from-file", inputSchema: ref });
    expect(checkInput(fromFile, { scope: "workspace" }).ok).toBe(true);
    expect(checkInput(fromFile, { scope: 1 }).ok).toBe(false);
    writeFileSync(path, JSON.stringify({ type: "object", required: ["other", "more"] }));
    expect(schemaOf(ref)).not.toBe(first);
  });
});
