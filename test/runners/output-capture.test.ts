import { describe, expect, it } from "vitest";
import { OutputCapture } from "../../src/runners/output-capture.js";

describe("OutputCapture", () => {
  it("keeps the first bytes up to the limit, flags the rest, and keeps accepting chunks", () => {
    const capture = new OutputCapture(5);
    capture.push(Buffer.from("abc"));
    capture.push(Buffer.from("defgh"));
    capture.push(Buffer.from("ijk"));
    expect(capture.text()).toBe("abcde");
    expect(capture.truncated).toBe(true);
  });

  it("is not truncated at exactly the limit", () => {
    const capture = new OutputCapture(3);
    capture.push(Buffer.from("abc"));
    capture.push(Buffer.alloc(0));
    expect(capture.text()).toBe("abc");
    expect(capture.truncated).toBe(false);
  });

  it("streams whole UTF-8 characters even when a chunk splits one", () => {
    const streamed: string[] = [];
    const capture = new OutputCapture(100, (text) => streamed.push(text));
    const bytes = Buffer.from("é€", "utf8");
    capture.push(bytes.subarray(0, 1));
    capture.push(bytes.subarray(1, 3));
    capture.push(bytes.subarray(3));
    expect(streamed.join("")).toBe("é€");
    expect(streamed.every((text) => !text.includes("\uFFFD"))).toBe(true);
    expect(capture.text()).toBe("é€");
  });

  it("a listener that throws loses nothing", () => {
    const capture = new OutputCapture(10, () => {
      throw new Error("listener failed");
    });
    capture.push(Buffer.from("hello"));
    expect(capture.text()).toBe("hello");
  });
});
