import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const TOOLS = join(import.meta.dirname, "../../../src/tools");

/** The broker, its stages and the hook adapters: the call path whose texts live in call-texts.ts. */
const CALL_PATH = [
  "broker.ts",
  "turn.ts",
  "call-hooks.ts",
  "extension-hooks.ts",
  ...readdirSync(join(TOOLS, "stages")).map((name) => `stages/${name}`),
];

describe("the call path's texts", () => {
  it.each(CALL_PATH)("%s builds no HOST: text of its own (every one is in call-texts.ts)", (file) => {
    const code = readFileSync(join(TOOLS, file), "utf8")
      // Comments may name the prefix; only code counts.
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    expect(code).not.toMatch(/["'`]HOST:/);
  });
});
