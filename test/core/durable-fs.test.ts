import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  isFolderFlushUnsupported,
  readSmallFile,
  syncFolder,
  syncFolderSync,
  writeFileAtomically,
  writeFileAtomicallySync,
} from "../../src/core/durable-fs.js";
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

/** One row: what is at the target before the write, the mode, and what must happen. */
interface WriteRow {
  readonly name: string;
  readonly before: "nothing" | "a file" | "a folder" | "no parent folder";
  readonly exclusive: boolean;
  /** `true`/`false`: the returned answer; a string: the error code thrown. */
  readonly outcome: boolean | string;
  /** The target's content afterwards, or undefined when it is not a file. */
  readonly after: string | undefined;
}

const writeRows: readonly WriteRow[] = [
  { name: "creates a new file", before: "nothing", exclusive: false, outcome: true, after: "new" },
  { name: "replaces a file", before: "a file", exclusive: false, outcome: true, after: "new" },
  { name: "exclusive: creates a new file", before: "nothing", exclusive: true, outcome: true, after: "new" },
  { name: "exclusive: leaves a file alone", before: "a file", exclusive: true, outcome: false, after: "old" },
  {
    name: "exclusive: leaves a folder alone",
    before: "a folder",
    exclusive: true,
    outcome: false,
    after: undefined,
  },
  {
    name: "refuses to replace a folder",
    before: "a folder",
    exclusive: false,
    outcome: "EISDIR",
    after: undefined,
  },
  {
    name: "throws without a folder",
    before: "no parent folder",
    exclusive: false,
    outcome: "ENOENT",
    after: undefined,
  },
];

function layOut(before: WriteRow["before"]): { folder: string; target: string } {
  const root = makeTree("skillgate-atomic-");
  const folder = before === "no parent folder" ? join(root, "missing") : root;
  const target = join(folder, "file.json");
  if (before === "a file") writeFileSync(target, "old");
  if (before === "a folder") mkdirSync(target);
  return { folder: root, target };
}

function contentOf(target: string): string | undefined {
  try {
    return readFileSync(target, "utf8");
  } catch {
    return undefined;
  }
}

describe("the atomic write: one rule", () => {
  it.each(writeRows)("sync: $name", ({ before, exclusive, outcome, after }) => {
    const { folder, target } = layOut(before);
    if (typeof outcome === "string")
      expect(() => writeFileAtomicallySync(target, "new", { exclusive })).toThrow(
        expect.objectContaining({ code: outcome }),
      );
    else expect(writeFileAtomicallySync(target, "new", { exclusive })).toBe(outcome);
    expect(contentOf(target)).toBe(after);
    if (before === "a folder") expect(existsSync(target)).toBe(true);
    // The temporary file never outlives the call, whatever happened.
    expect(readdirSync(folder).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  });

  it.each(writeRows.filter((row) => !row.exclusive))("async: $name", async ({ before, outcome, after }) => {
    const { folder, target } = layOut(before);
    if (typeof outcome === "string")
      await expect(writeFileAtomically(target, "new")).rejects.toMatchObject({ code: outcome });
    else await expect(writeFileAtomically(target, "new")).resolves.toBeUndefined();
    expect(contentOf(target)).toBe(after);
    expect(readdirSync(folder).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  });
});

describe("readSmallFile: a regular file within its limit, or nothing", () => {
  it("reads a file up to the limit and answers undefined for every other case", () => {
    const folder = makeTree();
    writeFileSync(join(folder, "exact.txt"), "12345");
    writeFileSync(join(folder, "over.txt"), "123456");
    symlinkSync(join(folder, "exact.txt"), join(folder, "link.txt"));
    mkdirSync(join(folder, "folder"));
    execFileSync("mkfifo", [join(folder, "fifo")]);
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["exact.txt", "12345"],
      ["over.txt", undefined],
      ["link.txt", undefined],
      ["folder", undefined],
      ["fifo", undefined],
      ["missing.txt", undefined],
    ];
    for (const [name, expected] of table)
      expect([name, readSmallFile(join(folder, name), 5)]).toEqual([name, expected]);
  });
});
