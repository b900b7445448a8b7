import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import type { ImportErrorCode } from "../../../src/store/import/import-errors.js";
import { isImportRefusal } from "../../../src/store/import/import-errors.js";
import { DEFAULT_IMPORT_LIMITS } from "../../../src/store/import/limits.js";
import { unpackSkillZip } from "../../../src/store/import/unpack-zip.js";
import { type HandmadeEntry, handmadeZip, unixAttributes } from "./handmade-zip.js";
import { emptyTarget, hexText, listTree, noise, removeTargets, SKILL_MD, yazlZip } from "./zip-fixtures.js";

const MiB = 1024 * 1024;
const skill: HandmadeEntry = { name: "SKILL.md", data: Buffer.from(SKILL_MD) };
const file = (name: string | Buffer, data = "x", extra: Partial<HandmadeEntry> = {}): HandmadeEntry => ({
  name,
  data: Buffer.from(data),
  ...extra,
});

interface HostileCase {
  readonly name: string;
  readonly code: ImportErrorCode;
  readonly zip: () => Buffer | Promise<Buffer>;
}

const cases: HostileCase[] = [
  // Zip slip: every way a name can leave the target.
  { name: "parent segment", code: "path_not_allowed", zip: () => handmadeZip([skill, file("../evil.txt")]) },
  {
    name: "parent segment deep inside",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("a/b/../../../evil")]),
  },
  {
    name: "absolute path",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("/etc/cron.d/evil")]),
  },
  {
    name: "backslash path",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("..\\..\\evil.txt")]),
  },
  {
    name: "backslash inside a name",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("scripts\\run.sh")]),
  },
  {
    name: "drive letter",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("C:/Windows/evil.txt")]),
  },
  {
    name: "drive letter without slash",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("c:evil.txt")]),
  },
  {
    name: "control character",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("bad\u0001name")]),
  },
  {
    name: "NUL in a name",
    code: "path_not_allowed",
    zip: () => handmadeZip([skill, file("evil.txt\u0000.md")]),
  },
  // Links and special files.
  {
    name: "unix symlink",
    code: "symlink_not_allowed",
    zip: () =>
      handmadeZip([skill, file("link", "/etc/passwd", { externalAttributes: unixAttributes(0o120777) })]),
  },
  {
    name: "windows reparse point",
    code: "symlink_not_allowed",
    zip: () => handmadeZip([skill, file("link", "x", { versionMadeBy: 0x0a3f, externalAttributes: 0x420 })]),
  },
  {
    name: "fifo",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("pipe", "", { externalAttributes: unixAttributes(0o010644) })]),
  },
  {
    name: "character device",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("tty", "", { externalAttributes: unixAttributes(0o020666) })]),
  },
  {
    name: "block device",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("disk", "", { externalAttributes: unixAttributes(0o060660) })]),
  },
  {
    name: "socket",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("sock", "", { externalAttributes: unixAttributes(0o140755) })]),
  },
  {
    name: "setuid file",
    code: "unsupported_entry",
    zip: () =>
      handmadeZip([skill, file("scripts/run.sh", "echo", { externalAttributes: unixAttributes(0o104755) })]),
  },
  {
    name: "setgid file",
    code: "unsupported_entry",
    zip: () =>
      handmadeZip([skill, file("scripts/run.sh", "echo", { externalAttributes: unixAttributes(0o102755) })]),
  },
  {
    name: "sticky folder",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("tmp/", "", { externalAttributes: unixAttributes(0o041777) })]),
  },
  {
    name: "file name with folder mode",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("notes", "", { externalAttributes: unixAttributes(0o040755) })]),
  },
  {
    name: "unsupported compression method",
    code: "unsupported_entry",
    zip: () => handmadeZip([skill, file("a.txt", "hello", { method: 12 })]),
  },
  // Encryption.
  {
    name: "encrypted entry (bit 0)",
    code: "encrypted_entry",
    zip: () => handmadeZip([skill, file("a.txt", "x", { flags: 0x801 })]),
  },
  {
    name: "strong encryption (bit 6)",
    code: "encrypted_entry",
    zip: () => handmadeZip([skill, file("a.txt", "x", { flags: 0x841 })]),
  },
  // Duplicates.
  {
    name: "exact duplicate",
    code: "duplicate_entry",
    zip: () => handmadeZip([skill, file("a.txt"), file("a.txt", "y")]),
  },
  { name: "duplicate SKILL.md", code: "duplicate_entry", zip: () => handmadeZip([skill, skill]) },
  {
    name: "double slash duplicate",
    code: "duplicate_entry",
    zip: () => handmadeZip([skill, file("a/b.txt"), file("a//b.txt")]),
  },
  {
    name: "dot segment duplicate",
    code: "duplicate_entry",
    zip: () => handmadeZip([skill, file("a.txt"), file("./a.txt")]),
  },
  {
    name: "file and folder",
    code: "duplicate_entry",
    zip: () => handmadeZip([skill, file("a"), file("a/b.txt")]),
  },
  {
    name: "folder entry then file",
    code: "duplicate_entry",
    zip: () => handmadeZip([skill, file("a/", ""), file("a")]),
  },
  // The local header and the central directory disagree about a name.
  {
    name: "local header names another file",
    code: "entry_name_mismatch",
    zip: () => handmadeZip([skill, file("notes.txt", "echo hi", { localName: "scripts/run.sh" })]),
  },
  {
    name: "local header names SKILL.md differently",
    code: "entry_name_mismatch",
    zip: () => handmadeZip([{ ...skill, localName: "SKILL.mD" }]),
  },
  {
    name: "local header climbs out where the central name does not",
    code: "entry_name_mismatch",
    zip: () => handmadeZip([skill, file("a.txt", "x", { localName: "../a.txt" })]),
  },
  {
    name: "same bytes, local header not UTF-8 (decodes to another name)",
    code: "entry_name_mismatch",
    zip: () => handmadeZip([skill, file(Buffer.from("caf\u00e9.txt", "utf8"), "x", { localFlags: 0 })]),
  },
  {
    name: "a skipped __MACOSX entry whose local header names a skill file",
    code: "entry_name_mismatch",
    zip: () => handmadeZip([skill, file("__MACOSX/._x", "x", { localName: "scripts/x.sh" })]),
  },
  // Counts and sizes.
  {
    name: "too many files",
    code: "too_many_files",
    zip: () =>
      yazlZip({
        "SKILL.md": SKILL_MD,
        ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, "x"])),
      }),
  },
  {
    name: "too many entries of any kind",
    code: "too_many_files",
    zip: () => handmadeZip([skill, ...Array.from({ length: 900 }, (_, i) => file(`d${i}/`, ""))]),
  },
  {
    name: "file over 1 MiB",
    code: "file_too_large",
    zip: () => yazlZip({ "SKILL.md": SKILL_MD, "big.bin": noise(MiB + 1) }),
  },
  {
    name: "skill over 5 MiB",
    code: "skill_too_large",
    zip: () =>
      yazlZip({
        "SKILL.md": SKILL_MD,
        ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`part${i}.txt`, hexText(MiB - 10)])),
      }),
  },
  {
    name: "header claims a huge size",
    code: "file_too_large",
    zip: () => handmadeZip([skill, file("a.txt", "small", { declaredSize: 0x7fffffff })]),
  },
  {
    name: "header lies small, content over the file limit",
    code: "file_too_large",
    zip: () => handmadeZip([skill, { name: "a.bin", data: noise(2 * MiB), declaredSize: 10 }]),
  },
  {
    name: "header lies small, content within limits",
    code: "invalid_zip",
    zip: () => handmadeZip([skill, { name: "a.txt", data: Buffer.from("x".repeat(100)), declaredSize: 10 }]),
  },
  {
    name: "checksum mismatch",
    code: "invalid_zip",
    zip: () => handmadeZip([skill, file("a.txt", "hello", { crc: 1234 })]),
  },
  // Bombs.
  {
    name: "ratio bomb in one entry",
    code: "zip_bomb",
    zip: () => handmadeZip([skill, { name: "zeros.bin", data: Buffer.alloc(MiB) }]),
  },
  {
    name: "ratio bomb across the archive",
    code: "zip_bomb",
    zip: () =>
      handmadeZip([
        skill,
        ...Array.from({ length: 100 }, (_, i) => ({ name: `z${i}`, data: Buffer.alloc(60 * 1024) })),
      ]),
  },
  // Not a skill, not a zip.
  { name: "no SKILL.md", code: "missing_skill_file", zip: () => handmadeZip([file("README.md", "hi")]) },
  {
    name: "two top folders",
    code: "missing_skill_file",
    zip: () => handmadeZip([{ ...skill, name: "one/SKILL.md" }, file("two/x.txt")]),
  },
  {
    name: "SKILL.md two folders deep",
    code: "missing_skill_file",
    zip: () => handmadeZip([{ ...skill, name: "a/b/SKILL.md" }]),
  },
  {
    name: "not a zip",
    code: "invalid_zip",
    zip: () => Buffer.from("this is not a zip archive at all, just text"),
  },
  { name: "empty upload", code: "invalid_zip", zip: () => Buffer.alloc(0) },
  {
    name: "truncated archive",
    code: "invalid_zip",
    zip: () => handmadeZip([skill, file("a.txt", "hello")]).subarray(0, 60),
  },
  {
    name: "zip over 5 MiB",
    code: "zip_too_large",
    zip: () => yazlZip({ "SKILL.md": SKILL_MD, "a.bin": noise(5 * MiB) }, { store: true }),
  },
];

afterAll(removeTargets);

describe("unpackSkillZip refuses hostile archives", () => {
  it.each(cases)("$name → $code", async ({ code, zip }) => {
    const { root, target } = await emptyTarget();
    const bytes = await zip();
    const error = await unpackSkillZip(bytes, target).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isImportRefusal(error), String(error)).toBe(true);
    expect(isImportRefusal(error) && error.code).toBe(code);
    // The target is untouched and no temporary folder is left beside it.
    expect(await listTree(target)).toEqual([]);
    expect(await listTree(root)).toEqual(["target"]);
  });
});

describe("unpackSkillZip reads uploads through a bound", () => {
  it("refuses an endless stream before reading it all", async () => {
    const { root, target } = await emptyTarget();
    let produced = 0;
    const chunk = Buffer.alloc(64 * 1024, 7);
    const endless = new Readable({
      read() {
        produced += chunk.length;
        // 100 MiB would be pushed if nobody stopped reading.
        this.push(produced > 100 * MiB ? null : chunk);
      },
    });
    const error = await unpackSkillZip(endless, target).catch((thrown: unknown) => thrown);
    expect(isImportRefusal(error, "zip_too_large")).toBe(true);
    expect(isImportRefusal(error) ? error.httpStatus : 0).toBe(413);
    expect(produced).toBeLessThan(10 * MiB);
    expect(endless.destroyed).toBe(true);
    expect(await listTree(root)).toEqual(["target"]);
  });

  it("refuses a file path over the limit by its size", async () => {
    const { root, target } = await emptyTarget();
    const path = join(root, "big.zip");
    await writeFile(path, Buffer.alloc(DEFAULT_IMPORT_LIMITS.maxZipBytes + 1));
    const error = await unpackSkillZip(path, target).catch((thrown: unknown) => thrown);
    expect(isImportRefusal(error, "zip_too_large")).toBe(true);
    expect(await listTree(target)).toEqual([]);
  });

  it("applies limits given as a parameter", async () => {
    const { target } = await emptyTarget();
    const zip = await yazlZip({ "SKILL.md": SKILL_MD, "a.txt": "one", "b.txt": "two" });
    const error = await unpackSkillZip(zip, target, { ...DEFAULT_IMPORT_LIMITS, maxFiles: 2 }).catch(
      (thrown: unknown) => thrown,
    );
    expect(isImportRefusal(error, "too_many_files")).toBe(true);
    expect(await listTree(target)).toEqual([]);
  });
});
