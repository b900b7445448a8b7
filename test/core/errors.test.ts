import { describe, expect, it } from "vitest";
import { diagnostic, hasErrors } from "../../src/core/diagnostics.js";
import {
  describeError,
  FileTooLargeError,
  InvalidArgumentError,
  isSkillgateError,
  NotFoundError,
  PathNotAllowedError,
  SkillgateError,
} from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/hashing.js";

describe("errors", () => {
  it("carry a stable code, typed data and their class name", () => {
    const error = new NotFoundError("skill", "pdf", ["pdf-tools", "pdf-forms"]);
    expect(error).toBeInstanceOf(SkillgateError);
    expect(error.code).toBe("not_found");
    expect(error.name).toBe("NotFoundError");
    expect(error.data).toEqual({ kind: "skill", name: "pdf", candidates: ["pdf-tools", "pdf-forms"] });
    expect(error.message).toBe('no skill named "pdf" (did you mean: pdf-tools, pdf-forms)');
    expect(new NotFoundError("skill", "x").message).toBe('no skill named "x"');
  });

  it("isSkillgateError matches the class and, when given, the code", () => {
    const error = new FileTooLargeError("/a", 2, 1);
    expect(isSkillgateError(error)).toBe(true);
    expect(isSkillgateError(error, "file_too_large")).toBe(true);
    expect(isSkillgateError(error, "not_found")).toBe(false);
    expect(isSkillgateError(new Error("x"))).toBe(false);
    expect(isSkillgateError("file_too_large")).toBe(false);
  });

  it("each subclass has its documented code and data", () => {
    expect(new InvalidArgumentError("mode", "bad").data).toEqual({ argument: "mode" });
    expect(new InvalidArgumentError("mode", "bad").code).toBe("invalid_argument");
    expect(new PathNotAllowedError("/etc/passwd", "/skills").code).toBe("path_not_allowed");
    expect(new FileTooLargeError("/a", 2, 1).data).toEqual({ path: "/a", size: 2, limit: 1 });
  });

  it("describeError gives Name: message for anything thrown", () => {
    expect(describeError(new TypeError("nope"))).toBe("TypeError: nope");
    expect(describeError(new NotFoundError("skill", "x"))).toBe('NotFoundError: no skill named "x"');
    expect(describeError("text")).toBe("Error: text");
    expect(describeError(undefined)).toBe("Error: undefined");
  });

  it("keeps a cause", () => {
    const cause = new Error("inner");
    expect(new SkillgateError("io_error", "outer", {}, { cause }).cause).toBe(cause);
  });
});

describe("diagnostics", () => {
  it("diagnostic() leaves out location keys that were not given", () => {
    const bare = diagnostic("invalid_name", "error", "bad");
    expect(bare).toEqual({ code: "invalid_name", severity: "error", message: "bad" });
    expect(Object.keys(bare)).toEqual(["code", "severity", "message"]);
    const placed = diagnostic("invalid_name", "warning", "bad", {
      path: "/a",
      field: "name",
      hint: undefined,
    });
    expect(Object.keys(placed)).toEqual(["code", "severity", "message", "path", "field"]);
  });

  it("hasErrors is true only with an error", () => {
    expect(hasErrors([])).toBe(false);
    expect(hasErrors([diagnostic("unknown_field", "warning", "w")])).toBe(false);
    expect(
      hasErrors([diagnostic("unknown_field", "warning", "w"), diagnostic("invalid_name", "error", "e")]),
    ).toBe(true);
  });
});

describe("sha256Hex", () => {
  it("matches the standard test vectors for text and bytes", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex("abc"));
  });
});
