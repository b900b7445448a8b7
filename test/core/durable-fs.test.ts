import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isFolderFlushUnsupported, syncFolder, syncFolderSync } from "../../src/core/durable-fs.js";
import { makeTree } from "../helpers/skill-tree.js";

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

describe("syncFolder: one error rule", () => {
  // Which errors mean "this platform cannot flush a folder" (skipped) and which are failures.
  const table: ReadonlyArray<readonly [string, unknown, boolean]> = [
    ["EISDIR (Windows)", errno("EISDIR"), true],
    ["EPERM (Windows)", errno("EPERM"), true],
    ["EINVAL", errno("EINVAL"), true],
    ["EBADF", errno("EBADF"), true],
    ["ENOTSUP", errno("ENOTSUP"), true],
    ["ENOENT: the folder is gone", errno("ENOENT"), false],
    ["EIO: the disk failed", errno("EIO"), false],
    ["EACCES", errno("EACCES"), false],
    ["ENOSPC", errno("ENOSPC"), false],
    ["an error without a code", new Error("plain"), false],
    ["not an error", "EPERM", false],
    ["undefined", undefined, false],
  ];
  it.each(table)("%s → skipped: %s", (_label, error, skipped) => {
    expect(isFolderFlushUnsupported(error)).toBe(skipped);
  });

  it("flushes a real folder, synchronously and not", async () => {
    const folder = makeTree("skillgate-sync-");
    writeFileSync(join(folder, "file"), "x");
    await expect(syncFolder(folder)).resolves.toBeUndefined();
    expect(() => syncFolderSync(folder)).not.toThrow();
  });

  it("throws for a folder that is not there, in both forms (a failure is never swallowed)", async () => {
    const missing = join(makeTree("skillgate-sync-"), "missing");
    await expect(syncFolder(missing)).rejects.toMatchObject({ code: "ENOENT" });
    expect(() => syncFolderSync(missing)).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
