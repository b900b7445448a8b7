import { describe, expect, it } from "vitest";
import { isForbiddenKey, isPlainObject, parseJsonSafely, sanitizeJson } from "../../src/core/safe-json.js";

function notPolluted(): void {
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe("parseJsonSafely", () => {
  it("parses ordinary JSON", () => {
    expect(parseJsonSafely('{"a": [1, "two", null, true], "b": {"c": 1.5}}')).toEqual({
      a: [1, "two", null, true],
      b: { c: 1.5 },
    });
    expect(parseJsonSafely("3")).toBe(3);
  });

  it.each(["__proto__", "constructor", "prototype"])("drops %s keys at any depth", (key) => {
    const parsed = parseJsonSafely(`{"${key}": {"polluted": 1}, "a": {"${key}": {"polluted": 2}, "b": 1}}`);
    expect(parsed).toEqual({ a: { b: 1 } });
    expect(Object.keys(parsed as object)).toEqual(["a"]);
    notPolluted();
  });

  it("dropped keys do not reach a later merge", () => {
    const parsed = parseJsonSafely('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    const merged = Object.assign({}, parsed);
    expect(merged.polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    notPolluted();
  });

  it("keeps keys inside lists of objects apart from the forbidden ones", () => {
    expect(parseJsonSafely('[{"constructor": 1, "k": 2}]')).toEqual([{ k: 2 }]);
  });

  it("throws SyntaxError for invalid JSON", () => {
    expect(() => parseJsonSafely("{")).toThrow(SyntaxError);
  });
});

describe("sanitizeJson", () => {
  it("copies plain values and removes forbidden keys", () => {
    const input = JSON.parse('{"__proto__": {"polluted": 1}, "a": [{"prototype": 1, "b": 2}], "c": "d"}');
    const clean = sanitizeJson(input);
    expect(clean).toEqual({ a: [{ b: 2 }], c: "d" });
    expect(Object.hasOwn(clean as object, "__proto__")).toBe(false);
    notPolluted();
  });

  it("returns a copy, not the input", () => {
    const input = { a: { b: 1 } };
    const clean = sanitizeJson(input) as { a: { b: number } };
    clean.a.b = 2;
    expect(input.a.b).toBe(1);
  });

  it("turns non-JSON values into null", () => {
    expect(sanitizeJson(Number.NaN)).toBeNull();
    expect(sanitizeJson(Number.POSITIVE_INFINITY)).toBeNull();
    expect(sanitizeJson(undefined)).toBeNull();
    expect(sanitizeJson(() => 1)).toBeNull();
    expect(sanitizeJson(10n)).toBeNull();
    expect(sanitizeJson([1, Number.NaN])).toEqual([1, null]);
  });

  it("isForbiddenKey and isPlainObject", () => {
    expect(["__proto__", "constructor", "prototype"].every(isForbiddenKey)).toBe(true);
    expect(isForbiddenKey("proto")).toBe(false);
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject("x")).toBe(false);
  });
});
