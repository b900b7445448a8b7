import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isPackageError, type PackageErrorCode } from "../../src/nodes/packages/package-errors.js";
import { extractPackage } from "../../src/nodes/packages/package-extract.js";
import { DEFAULT_PACKAGE_LIMITS } from "../../src/nodes/packages/package-limits.js";
import { makeTree } from "../helpers/skill-tree.js";
import { listTree, patchHeader, type RawEntry, rawTar, rawTarGz } from "./package-fixtures.js";

const MIB = 1024 * 1024;

/** Extracts and returns the refusal's code, checking nothing was left behind. */
function refusalOf(bytes: Buffer): PackageErrorCode {
  const root = makeTree("skillgate-extract-");
  const staging = join(root, "staging");
  try {
    extractPackage(bytes, staging);
  } catch (error) {
    if (!isPackageError(error)) throw error;
    expect(existsSync(staging)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
    return error.code;
  }
  throw new Error("the package was not refused");
}

const file = (path: string, data = "x"): RawEntry => ({ path, data });

describe("extractPackage", () => {
  it("writes folders 0700 and files 0600, never an execute bit, whatever the archive says", () => {
    const root = makeTree("skillgate-extract-");
    const staging = join(root, "staging");
    const bytes = rawTarGz([
      { path: "scripts/", type: "Directory", mode: 0o777 },
      { path: "scripts/run.py", data: "print(1)\n", mode: 0o4777 },
      { path: "./SKILL.md", data: "# skill\n", mode: 0o755 },
      { path: "deep/er/file.txt", data: "z" },
    ]);
    const result = extractPackage(bytes, staging);
    expect(result.files).toEqual(["scripts/run.py", "SKILL.md", "deep/er/file.txt"]);
    expect(result.totalBytes).toBe(9 + 8 + 1);
    expect(listTree(staging)).toEqual([
      "SKILL.md 600",
      "deep 700",
      "deep/er 700",
      "deep/er/file.txt 600",
      "scripts 700",
      "scripts/run.py 600",
    ]);
    expect(statSync(staging).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(staging, "scripts/run.py"), "utf8")).toBe("print(1)\n");
  });

  it("reads a long path from a pax record", () => {
    const root = makeTree("skillgate-extract-");
    const long = `${"a".repeat(120)}/${"b".repeat(120)}.txt`;
    const result = extractPackage(rawTarGz([{ path: long, data: "long", pax: true }]), join(root, "s"));
    expect(result.files).toEqual([long]);
  });

  const tooMany = Array.from({ length: DEFAULT_PACKAGE_LIMITS.maxFiles + 1 }, (_, index) =>
    file(`f${index}.txt`),
  );
  const tooManyFolders = Array.from({ length: DEFAULT_PACKAGE_LIMITS.maxFolders + 1 }, (_, index) => ({
    path: `d${index}/`,
    type: "Directory" as const,
  }));
  const sixMiB = Array.from({ length: 6 }, (_, index) => file(`part${index}.bin`, "y".repeat(MIB)));

  const hostile: ReadonlyArray<readonly [string, Buffer, PackageErrorCode]> = [
    [
      "a symbolic link",
      rawTarGz([{ path: "link", type: "SymbolicLink", linkpath: "/etc/passwd" }]),
      "package_symlink",
    ],
    [
      "a hard link",
      rawTarGz([file("a"), { path: "b", type: "Link", linkpath: "/etc/shadow" }]),
      "package_hardlink",
    ],
    ["a character device", rawTarGz([{ path: "tty", type: "CharacterDevice" }]), "package_special_entry"],
    ["a block device", rawTarGz([{ path: "sda", type: "BlockDevice" }]), "package_special_entry"],
    ["a FIFO", rawTarGz([{ path: "pipe", type: "FIFO" }]), "package_special_entry"],
    ["a `..` path", rawTarGz([file("../outside.txt")]), "package_path_not_allowed"],
    ["a `..` inside a path", rawTarGz([file("scripts/../../outside.txt")]), "package_path_not_allowed"],
    ["an absolute path", rawTarGz([file("/tmp/outside.txt")]), "package_path_not_allowed"],
    ["a backslash path", rawTarGz([file("..\\outside.txt")]), "package_path_not_allowed"],
    ["a control character", rawTarGz([file("bad\u0001name")]), "package_path_not_allowed"],
    [
      "a `..` in a pax path",
      rawTarGz([{ path: "../pax-outside.txt", data: "x", pax: true }]),
      "package_path_not_allowed",
    ],
    ["a path too deep", rawTarGz([file(`${"d/".repeat(20)}f`)]), "package_path_not_allowed"],
    ["an entry over 1 MiB", rawTarGz([file("big.bin", "z".repeat(MIB + 1))]), "package_entry_too_large"],
    [
      "a header declaring more than 1 MiB",
      rawTarGz([{ path: "liar.bin", data: "z", size: 2 * MIB }]),
      "package_entry_too_large",
    ],
    ["more than 200 files", rawTarGz(tooMany), "package_too_many_entries"],
    ["more than 200 folders", rawTarGz(tooManyFolders), "package_too_many_entries"],
    ["more than 5 MiB in all", rawTarGz(sixMiB), "package_too_large"],
    ["a gzip bomb", gzipSync(Buffer.alloc(64 * MIB)), "package_too_large"],
    [
      "a stream larger than a package may be",
      Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(7 * MIB)]),
      "package_too_large",
    ],
    ["the same path twice", rawTarGz([file("a.txt"), file("./a.txt")]), "package_duplicate_entry"],
    ["a file under a file", rawTarGz([file("a"), file("a/b")]), "package_duplicate_entry"],
    [
      "a folder over a file",
      rawTarGz([file("a"), { path: "a/", type: "Directory" }]),
      "package_duplicate_entry",
    ],
    ["not gzip", Buffer.from("this is not a package at all, just text"), "package_invalid"],
    ["a plain tar", rawTar([file("a.txt")]), "package_invalid"],
    ["gzip of text", gzipSync(Buffer.from("hello ".repeat(200))), "package_invalid"],
    [
      "a truncated gzip stream",
      rawTarGz([file("a.txt", "q".repeat(4000))]).subarray(0, 60),
      "package_invalid",
    ],
    [
      "a tar cut inside a file",
      gzipSync(rawTar([file("a.txt", "q".repeat(4000))]).subarray(0, 1024)),
      "package_invalid",
    ],
    ["a tar with no end blocks", rawTarGz([file("a.txt")], { end: false }), "package_invalid"],
    ["a bad header checksum", rawTarGz([{ path: "a.txt", data: "x", badChecksum: true }]), "package_invalid"],
    ["a global pax header", rawTarGz([{ path: "a.txt", data: "x", globalPax: true }]), "package_invalid"],
    [
      "a size field that is not a number (checksum recomputed)",
      gzipSync(
        patchHeader(rawTar([file("a.txt"), file("b.txt")]), 0, { start: 124, length: 12 }, "zzzzzzzzzzz"),
      ),
      "package_invalid",
    ],
    [
      "two pax records in a row",
      gzipSync(
        Buffer.concat([
          rawTar([{ path: "x".repeat(200), pax: true }], { end: false }).subarray(0, 1024),
          rawTar([{ path: "y".repeat(200), data: "z", pax: true }]),
        ]),
      ),
      "package_invalid",
    ],
    [
      "a GNU long name",
      rawTarGz([{ path: "././@LongLink", type: "NextFileHasLongPath", data: "evil" }]),
      "package_invalid",
    ],
  ];

  it.each(hostile)("refuses %s with its code and leaves nothing", (_name, bytes, code) => {
    expect(refusalOf(bytes)).toBe(code);
  });

  it("refuses a staging folder that exists, writing nothing into it", () => {
    const root = makeTree("skillgate-extract-");
    expect(() => extractPackage(rawTarGz([file("a.txt")]), root)).toThrow(/EEXIST/);
    expect(readdirSync(root)).toEqual([]);
  });
});
