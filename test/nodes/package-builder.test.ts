import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Header } from "tar";
import { describe, expect, it } from "vitest";
import { buildVerifiedPackage, packFolder } from "../../src/nodes/packages/package-builder.js";
import { isPackageError } from "../../src/nodes/packages/package-errors.js";
import { extractPackage } from "../../src/nodes/packages/package-extract.js";
import { PACKAGE_GZIP_OS } from "../../src/nodes/packages/package-format.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { makeTree } from "../helpers/skill-tree.js";
import { skillFiles, writeSkill } from "./package-fixtures.js";

/** Every header of a tar: path, type, mode, uid, gid, mtime, uname. */
function headers(tarGz: Buffer): string[] {
  const tar = gunzipSync(tarGz);
  const result: string[] = [];
  for (let offset = 0; offset + 512 <= tar.length; ) {
    if (tar.subarray(offset, offset + 512).every((byte) => byte === 0)) break;
    const header = new Header(tar, offset);
    result.push(
      `${header.path} ${header.type} ${header.mode?.toString(8)} ${header.uid}/${header.gid} ${header.mtime?.getTime()} "${header.uname ?? ""}"`,
    );
    offset += 512 + Math.ceil((header.size ?? 0) / 512) * 512;
  }
  return result;
}

describe("packFolder", () => {
  it("gives the same bytes twice, and for a copy with other times and modes", () => {
    const tree = makeTree("skillgate-pack-");
    const first = join(tree, "first");
    const hash = writeSkill(first, skillFiles("alpha", { "references/b.md": "b", "references/a.md": "a" }));
    const second = join(tree, "second");
    cpSync(first, second, { recursive: true });
    utimesSync(join(second, "SKILL.md"), new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    chmodSync(join(second, "scripts/run.py"), 0o700);
    expect(hashSkillFolder(second).hash).toBe(hash);
    const once = packFolder(first, hash);
    const twice = packFolder(first, hash);
    const copy = packFolder(second, hash);
    expect(twice.bytes.equals(once.bytes)).toBe(true);
    expect(copy.bytes.equals(once.bytes)).toBe(true);
    expect(copy.sha256).toBe(once.sha256);
    expect(once.size).toBe(once.bytes.length);
    expect(once.files).toBe(4);
    expect(once.bytes[9]).toBe(PACKAGE_GZIP_OS);
  });

  it("sorts entries by path, each folder before its files, with fixed modes, times and no owner", () => {
    const tree = makeTree("skillgate-pack-");
    const hash = writeSkill(tree, { "b.txt": "b", "a/z.txt": "z", "a.txt": "a", "a/b/c.txt": "c" });
    expect(headers(packFolder(tree, hash).bytes)).toEqual([
      'a.txt File 644 0/0 0 ""',
      'a/ Directory 755 0/0 0 ""',
      'a/b/ Directory 755 0/0 0 ""',
      'a/b/c.txt File 644 0/0 0 ""',
      'a/z.txt File 644 0/0 0 ""',
      'b.txt File 644 0/0 0 ""',
    ]);
  });

  it("round-trips through the extractor to the same content hash", () => {
    const tree = makeTree("skillgate-pack-");
    const source = join(tree, "source");
    const long = `${"x".repeat(150)}/${"y".repeat(150)}.txt`;
    const hash = writeSkill(source, skillFiles("beta", { [long]: "long path" }));
    extractPackage(packFolder(source, hash).bytes, join(tree, "out"));
    expect(hashSkillFolder(join(tree, "out")).hash).toBe(hash);
  });

  it("is read by the system tar", () => {
    const probe = spawnSync("tar", ["--version"]);
    if (probe.status !== 0) throw new Error("tar is missing; run scripts/install-test-deps.sh");
    const tree = makeTree("skillgate-pack-");
    const source = join(tree, "source");
    const hash = writeSkill(source, skillFiles("gamma"));
    writeFileSync(join(tree, "p.tar.gz"), packFolder(source, hash).bytes);
    mkdirSync(join(tree, "out"));
    const result = spawnSync("tar", ["-xzf", join(tree, "p.tar.gz"), "-C", join(tree, "out")]);
    expect(result.status).toBe(0);
    expect(hashSkillFolder(join(tree, "out")).hash).toBe(hash);
  });

  it("refuses a folder that does not hold the expected hash, and one with a link", () => {
    const tree = makeTree("skillgate-pack-");
    const hash = writeSkill(tree, skillFiles("delta"));
    writeFileSync(join(tree, "SKILL.md"), "changed");
    expect(() => packFolder(tree, hash)).toThrowError(
      expect.objectContaining({ code: "package_hash_mismatch" }),
    );
    symlinkSync("/etc/passwd", join(tree, "link"));
    expect(() => packFolder(tree)).toThrowError(expect.objectContaining({ code: "package_symlink" }));
  });

  it("refuses a file over 1 MiB and more than 200 files at build time", () => {
    const big = makeTree("skillgate-pack-");
    writeSkill(big, { "big.bin": Buffer.alloc(1024 * 1024 + 1) });
    expect(() => packFolder(big)).toThrowError(expect.objectContaining({ code: "package_entry_too_large" }));
    const many = makeTree("skillgate-pack-");
    const files: Record<string, string> = {};
    for (let index = 0; index <= 200; index += 1) files[`f${index}`] = "x";
    writeSkill(many, files);
    expect(() => packFolder(many)).toThrowError(
      expect.objectContaining({ code: "package_too_many_entries" }),
    );
  });
});

describe("buildVerifiedPackage", () => {
  it("packs the verified snapshot's bytes, and refuses a live folder that moved from the approved hash", () => {
    const tree = makeTree("skillgate-pack-");
    const folder = join(tree, "skill");
    const hash = writeSkill(folder, skillFiles("epsilon"));
    const snapshots = new SnapshotStore({ dataFolder: join(tree, "data") });
    const built = buildVerifiedPackage(snapshots, { name: "epsilon", hash, folder });
    expect(built.bytes.equals(packFolder(folder, hash).bytes)).toBe(true);
    writeFileSync(join(folder, "scripts/run.py"), "print('edited')\n");
    try {
      buildVerifiedPackage(snapshots, { name: "epsilon", hash, folder });
      throw new Error("not refused");
    } catch (error) {
      expect(isPackageError(error, "package_build_failed")).toBe(true);
      expect((error as { data: { actual?: string } }).data.actual).toBe("skill_changed");
    }
    expect(statSync(folder).isDirectory()).toBe(true);
    expect(readFileSync(join(folder, "scripts/run.py"), "utf8")).toContain("edited");
  });
});
