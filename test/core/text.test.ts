import { describe, expect, it } from "vitest";
import { SKILL_DESC_MAX } from "../../src/core/limits.js";
import { clipAtWord, codePointLength, collapseWhitespace, sliceAtCodePoint } from "../../src/core/text.js";

function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

describe("codePointLength", () => {
  it("counts code points, so an emoji counts once", () => {
    expect(codePointLength("")).toBe(0);
    expect(codePointLength("abc")).toBe(3);
    expect(codePointLength("😀")).toBe(1);
    expect("😀".length).toBe(2);
    expect(codePointLength("é😀中")).toBe(3);
    expect(codePointLength("😀".repeat(1024))).toBe(1024);
  });
});

describe("collapseWhitespace", () => {
  it("collapses runs of white space and trims", () => {
    expect(collapseWhitespace("  a \n\t b  ")).toBe("a b");
  });
});

describe("sliceAtCodePoint", () => {
  it("cuts at the given length, one less rather than inside a surrogate pair", () => {
    expect(sliceAtCodePoint("abcdef", 3)).toBe("abc");
    expect(sliceAtCodePoint("a😀b", 2)).toBe("a");
    expect(sliceAtCodePoint("a😀b", 3)).toBe("a😀");
    expect(sliceAtCodePoint("abc", 10)).toBe("abc");
    expect(sliceAtCodePoint("abc", 0)).toBe("");
  });
});

describe("clipAtWord", () => {
  it("clips 'word ' × 60 to exactly 250 ending with …", () => {
    expect(SKILL_DESC_MAX).toBe(250);
    const clipped = clipAtWord("word ".repeat(60), 250);
    expect(clipped.length).toBe(250);
    expect(clipped.endsWith("…")).toBe(true);
    expect(clipped.endsWith("word…")).toBe(true);
  });

  it("leaves text that fits alone", () => {
    expect(clipAtWord("short", 10)).toBe("short");
    expect(clipAtWord("exactly", 7)).toBe("exactly");
  });

  it("backs up to a space rather than splitting a word", () => {
    expect(clipAtWord("alpha beta gamma", 13)).toBe("alpha beta…");
  });

  it("does not back up past the first half: one long word shows its start", () => {
    expect(clipAtWord("a supercalifragilistic", 12)).toBe("a supercali…");
  });

  it("handles tiny maxima", () => {
    expect(clipAtWord("abc", 1)).toBe("…");
    expect(clipAtWord("abc", 0)).toBe("");
    expect(clipAtWord("abc", 2)).toBe("a…");
  });

  it("is never longer than max and never leaves half an emoji", () => {
    const texts = [
      "word ".repeat(60),
      "😀".repeat(300),
      `a${"😀".repeat(300)}`,
      `${"x ".repeat(10)}${"😀".repeat(50)}`,
      "é".repeat(400),
    ];
    for (const text of texts) {
      for (let max = 0; max <= 260; max += 1) {
        const clipped = clipAtWord(text, max);
        expect(clipped.length).toBeLessThanOrEqual(max);
        expect(hasLoneSurrogate(clipped)).toBe(false);
      }
    }
  });
});
