import { expect } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { InvalidConfigError } from "../../src/core/errors.js";

/** The problems `parseConfig` reports for `text`; fails the test when it does not refuse it. */
export function problemsOf(text: string): string[] {
  try {
    parseConfig(text, "/cfg/config.yaml");
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).code).toBe("invalid_config");
    return (error as InvalidConfigError).data.problems;
  }
  throw new Error("expected invalid_config");
}
