import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const TOOLS = join(import.meta.dirname, "../../../src/tools");

/**
 * Where a `HOST:` text may be written: call-texts.ts, and the two tables that stay with their
 * readers (the exact argument messages, the schema-mismatch sentences; see docs/tools.md).
 */
const TEXT_MODULES = new Set(["call-texts.ts", "arguments.ts", "input.ts"]);

const FILES = readdirSync(TOOLS, { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".ts") && !TEXT_MODULES.has(name))
  .sort();

describe("the model-facing texts of src/tools", () => {
  it("covers the broker, its stages, the turn and the tools", () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        "broker.ts",
        "turn.ts",
        "skill-tools.ts",
        "run-script-tool.ts",
        "stages/ask.ts",
      ]),
    );
  });

  it.each(FILES)("%s builds no HOST: text of its own (each one is in call-texts.ts)", (file) => {
    const code = readFileSync(join(TOOLS, file), "utf8")
      // Comments and tool descriptions may name the prefix; only a text starting with it counts.
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    expect(code).not.toMatch(/["'`]HOST:/);
  });
});
