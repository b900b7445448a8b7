import { describe, expect, it } from "vitest";
import { MAX_SKILL_CHARS } from "../../src/core/limits.js";
import { DEFAULT_GOVERNANCE } from "../../src/skill/governance.js";
import { Skill } from "../../src/skill/skill.js";

/** An error named like Python's `FileNotFoundError('SKILL.md')`, so the message can be compared whole. */
class FileNotFoundError extends Error {
  override name = "FileNotFoundError";
}

function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

describe("Skill (docs/skills.md, A skill)", () => {
  const notebook = new Skill({
    name: "nbdev",
    source: "md",
    description: "Develop nbdev projects.",
    where: "nbs/SKILL.md",
    body: () => "the whole body",
  });

  it("holds its name, source, description and where", () => {
    expect(notebook.name).toBe("nbdev");
    expect(notebook.source).toBe("md");
    expect(notebook.description).toBe("Develop nbdev projects.");
    expect(notebook.where).toBe("nbs/SKILL.md");
  });

  it("text() returns the body", () => {
    expect(notebook.text()).toBe("the whole body");
  });

  it("a body loader that throws gives a message instead of an exception", () => {
    const broken = new Skill({
      name: "gone",
      source: "md",
      body: () => {
        throw new FileNotFoundError("SKILL.md");
      },
    });
    expect(() => broken.text()).not.toThrow();
    expect(broken.text().startsWith("could not read skill gone: ")).toBe(true);
    expect(broken.text()).toBe("could not read skill gone: FileNotFoundError: SKILL.md");
  });

  it("a loader that throws a non-Error value still gives the message", () => {
    const broken = new Skill({
      name: "gone",
      source: "md",
      body: () => {
        throw "disk on fire";
      },
    });
    expect(broken.text()).toBe("could not read skill gone: Error: disk on fire");
  });

  it("clips a body longer than MAX_SKILL_CHARS and says how much was cut", () => {
    expect(MAX_SKILL_CHARS).toBe(20_000);
    const big = new Skill({ name: "big", source: "md", body: "x".repeat(MAX_SKILL_CHARS + 500) });
    const suffix = "\n…[500 more chars]";
    expect(big.text().length).toBe(MAX_SKILL_CHARS + suffix.length);
    expect(big.text().endsWith(suffix)).toBe(true);
    expect(big.text().slice(0, MAX_SKILL_CHARS)).toBe("x".repeat(MAX_SKILL_CHARS));
  });

  it("does not clip a body of exactly MAX_SKILL_CHARS", () => {
    const exact = new Skill({ name: "exact", source: "md", body: "y".repeat(MAX_SKILL_CHARS) });
    expect(exact.text()).toBe("y".repeat(MAX_SKILL_CHARS));
  });

  it("never cuts a surrogate pair in half when clipping", () => {
    const body = `${"x".repeat(MAX_SKILL_CHARS - 1)}${"😀".repeat(10)}`;
    const text = new Skill({ name: "emoji", source: "md", body }).text();
    expect(hasLoneSurrogate(text)).toBe(false);
    const match = /^([\s\S]*)\n…\[(\d+) more chars\]$/.exec(text);
    expect(match).not.toBeNull();
    const kept = match?.[1] ?? "";
    expect(kept.length).toBe(MAX_SKILL_CHARS - 1);
    expect(kept.length + Number(match?.[2])).toBe(body.length);
  });

  it("toJSON() carries where", () => {
    expect(notebook.toJSON().where).toBe("nbs/SKILL.md");
    expect(JSON.parse(JSON.stringify(notebook))).toEqual({
      name: "nbdev",
      source: "md",
      description: "Develop nbdev projects.",
      where: "nbs/SKILL.md",
    });
  });

  it("without a description, uses the body's first paragraph on one line", () => {
    const skill = new Skill({ name: "s", source: "md", body: "First line\nsecond line.\n\nMore." });
    expect(skill.description).toBe("First line second line.");
  });

  it("only name and source are required", () => {
    const bare = new Skill({ name: "edit", source: "md" });
    expect(bare.description).toBe("");
    expect(bare.where).toBe("");
    expect(bare.text()).toBe("");
    expect(bare.governance).toEqual(DEFAULT_GOVERNANCE);
  });

  it("does not read the body when a description is given (lazy)", () => {
    let reads = 0;
    const skill = new Skill({
      name: "lazy",
      source: "md",
      description: "Given.",
      body: () => {
        reads += 1;
        return "body";
      },
    });
    expect(reads).toBe(0);
    expect(skill.text()).toBe("body");
    expect(reads).toBe(1);
  });
});
