import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RACY_WINDOW_MS, rereadIfChanged, type StampedRead } from "../../src/core/file-stamps.js";
import { makeTree } from "../helpers/skill-tree.js";

describe("rereadIfChanged", () => {
  it("reads a missing file's meaning once, and again when a file appears", () => {
    const path = join(makeTree("skillgate-stamps-"), "file.txt");
    let reads = 0;
    const read = () => {
      reads += 1;
      return reads;
    };
    const first = rereadIfChanged(path, undefined, read);
    expect(first).toMatchObject({ stamp: "missing", settled: true, value: 1 });
    expect(rereadIfChanged(path, first, read)).toBe(first);
    writeFileSync(path, "text");
    expect(rereadIfChanged(path, first, read).value).toBe(2);
  });

  it("reads a file changed within the racy window again on every call, and keeps a settled one", () => {
    const path = join(makeTree("skillgate-stamps-"), "file.txt");
    writeFileSync(path, "text");
    let reads = 0;
    const read = () => {
      reads += 1;
      return reads;
    };
    let last: StampedRead<number> | undefined;
    for (let index = 0; index < 3; index += 1) last = rereadIfChanged(path, last, read);
    expect(reads).toBe(3);
    const later = () => Date.now() + RACY_WINDOW_MS + 1_000;
    const settled = rereadIfChanged(path, last, read, later);
    expect(settled.settled).toBe(true);
    expect(rereadIfChanged(path, settled, read, later)).toBe(settled);
    expect(reads).toBe(4);
    writeFileSync(path, "other text");
    expect(rereadIfChanged(path, settled, read, later).value).toBe(5);
  });
});
