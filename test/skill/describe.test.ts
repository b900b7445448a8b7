import { describe, expect, it } from "vitest";
import { DESCRIBE_MAX } from "../../src/core/limits.js";
import { describeSkillBody } from "../../src/skill/describe.js";

describe("describeSkillBody (a one-line description from a body)", () => {
  it("takes the first paragraph", () => {
    expect(
      describeSkillBody(`Search the web and read results into durable memory.

Use it when a question needs pages nobody has read yet.`),
    ).toBe("Search the web and read results into durable memory.");
  });

  it("gives '' for an empty body", () => {
    expect(describeSkillBody("")).toBe("");
  });

  it("collapses the first paragraph onto one line", () => {
    expect(describeSkillBody("one\ntwo\n\nthree")).toBe("one two");
  });

  it("cuts to 300 characters by default", () => {
    expect(DESCRIBE_MAX).toBe(300);
    expect(describeSkillBody("x ".repeat(400)).length).toBe(300);
  });

  it("honours a smaller maximum", () => {
    expect(describeSkillBody("abcdef", 3)).toBe("abc");
  });

  it("treats a blank line holding spaces as a paragraph break", () => {
    expect(describeSkillBody("  lead\n   \t\nrest")).toBe("lead");
  });

  it("never ends in half a surrogate pair", () => {
    expect(describeSkillBody("😀".repeat(200)) === "😀".repeat(150)).toBe(true);
    // 1 + 2 × 149 = 299 units: a 150th emoji would need 301.
    expect(describeSkillBody(`x${"😀".repeat(200)}`) === `x${"😀".repeat(149)}`).toBe(true);
  });
});
