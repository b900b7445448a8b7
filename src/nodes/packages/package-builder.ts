import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync, constants as zlibConstants } from "node:zlib";
import { Header, Pax } from "tar";
import { sha256Hex } from "../../core/hashing.js";
import type { SnapshotStore } from "../../runners/snapshot.js";
import { hashSkillFolder } from "../../skill/content-hash.js";
import { printable } from "../../store/import/entry-path.js";
import { PackageError } from "./package-errors.js";
import {
  PACKAGE_FILE_MODE,
  PACKAGE_FOLDER_MODE,
  PACKAGE_GZIP_LEVEL,
  PACKAGE_GZIP_OS,
  PACKAGE_MTIME,
} from "./package-format.js";
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "./package-limits.js";

/** A package as built: its bytes and what the manifest says of them. */
export interface BuiltPackage {
  readonly bytes: Buffer;
  /** SHA-256 (hex) of {@link BuiltPackage.bytes}. */
  readonly sha256: string;
  readonly size: number;
  /** Regular files packed. */
  readonly files: number;
}

/** Which skill to package: its name, the approved full hash and its live folder. */
export interface PackageSource {
  readonly name: string;
  readonly hash: string;
  readonly folder: string;
}

const BLOCK = 512;
const END_OF_ARCHIVE = Buffer.alloc(BLOCK * 2);

/**
 * Builds the package of a skill from a verified snapshot, so the bytes packed are the bytes
 * of the approved hash (invariant 3): {@link SnapshotStore.prepare} hashes the live folder,
 * refuses links and special files, and copies it; the copy is what is packed, and it is
 * hashed once more here. The snapshot is released before this returns.
 *
 * @throws PackageError `package_build_failed` (the snapshot's refusal: the skill changed,
 *   holds a link, cannot be read), or a limit code ({@link packFolder})
 */
export function buildVerifiedPackage(
  snapshots: SnapshotStore,
  source: PackageSource,
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): BuiltPackage {
  const prepared = snapshots.prepare({
    skill: source.name,
    hash: source.hash,
    folder: source.folder,
    script: "its package",
  });
  if (!prepared.ok) {
    // The snapshot's HOST: text is written for a model; a package refusal is for the owner.
    const reason = (prepared.refusal.message ?? "").replace(/^HOST: /, "");
    throw new PackageError("package_build_failed", `the package of ${source.name} was not built: ${reason}`, {
      name: source.name,
      hash: source.hash,
      actual: prepared.refusal.code ?? prepared.refusal.status,
    });
  }
  try {
    return packFolder(prepared.snapshot.folder, source.hash, limits);
  } finally {
    snapshots.release(prepared.snapshot);
  }
}

/**
 * The deterministic `tar.gz` of a folder of regular files (docs/nodes.md, "Packages"):
 * entries sorted by path as UTF-8 bytes (the content hash's order), each folder just
 * before its first file, folders 0755 and files 0644, mtime 0, uid and gid 0 with no user
 * or group names, ustar headers (a pax record only for a path ustar cannot hold, carrying
 * the path alone), two zero blocks at the end, gzip level 9 with the OS byte set to
 * "unknown". The same files always give the same bytes on every platform with the same zlib.
 *
 * `expectedHash`, when given, must be the folder's content hash (else `package_hash_mismatch`).
 *
 * @throws PackageError `package_symlink`, `package_special_entry`, `package_too_many_entries`,
 *   `package_entry_too_large`, `package_too_large`, `package_hash_mismatch`, `package_build_failed`
 */
export function packFolder(
  folder: string,
  expectedHash?: string,
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): BuiltPackage {
  const hashed = hashSkillFolder(folder);
  if (hashed.hash === undefined) {
    const problem = hashed.diagnostics[0];
    throw new PackageError(
      "package_build_failed",
      `${folder} cannot be packed: ${problem?.message ?? "it cannot be read"}`,
      { actual: problem?.code },
    );
  }
  if (expectedHash !== undefined && hashed.hash !== expectedHash)
    throw new PackageError("package_hash_mismatch", `${folder} does not hold the files of ${expectedHash}`, {
      hash: expectedHash,
      expected: expectedHash,
      actual: hashed.hash,
    });
  const blocks: Buffer[] = [];
  const folders = new Set<string>();
  let files = 0;
  let total = 0;
  for (const entry of hashed.entries) {
    if (entry.kind === "symlink")
      throw new PackageError("package_symlink", `${printable(entry.path)} is a symbolic link`, {
        entry: printable(entry.path),
      });
    if (entry.kind !== "file")
      throw new PackageError("package_special_entry", `${printable(entry.path)} is not a regular file`, {
        entry: printable(entry.path),
      });
    for (const parent of parentsOf(entry.path)) {
      if (folders.has(parent)) continue;
      folders.add(parent);
      if (folders.size > limits.maxFolders) throw tooManyEntries("folders", limits.maxFolders);
      blocks.push(...entryBlocks(`${parent}/`, "Directory", 0));
    }
    files += 1;
    if (files > limits.maxFiles) throw tooManyEntries("files", limits.maxFiles);
    const bytes = readRegular(join(folder, entry.path), entry.path);
    if (bytes.length > limits.maxFileBytes)
      throw new PackageError(
        "package_entry_too_large",
        `${printable(entry.path)} holds ${bytes.length} bytes; a package file may hold ${limits.maxFileBytes}`,
        { entry: printable(entry.path), limit: limits.maxFileBytes, actual: bytes.length },
      );
    total += bytes.length;
    if (total > limits.maxTotalBytes)
      throw new PackageError(
        "package_too_large",
        `the files hold more than ${limits.maxTotalBytes} bytes together`,
        { limit: limits.maxTotalBytes, actual: total },
      );
    blocks.push(...entryBlocks(entry.path, "File", bytes.length), bytes, padding(bytes.length));
  }
  blocks.push(END_OF_ARCHIVE);
  const bytes = gzipSync(Buffer.concat(blocks), {
    level: PACKAGE_GZIP_LEVEL,
    memLevel: 8,
    windowBits: 15,
    strategy: zlibConstants.Z_DEFAULT_STRATEGY,
  });
  // Byte 9 of a gzip header is the OS zlib was built for; fixed so platforms agree.
  bytes[9] = PACKAGE_GZIP_OS;
  return { bytes, sha256: sha256Hex(bytes), size: bytes.length, files };
}

/** `a/b/c.txt` → `a`, `a/b`: the folders above a file, outermost first. */
function parentsOf(path: string): string[] {
  const segments = path.split("/");
  const parents: string[] = [];
  for (let index = 1; index < segments.length; index += 1) parents.push(segments.slice(0, index).join("/"));
  return parents;
}

/** The header block of one entry, preceded by a pax record when ustar cannot hold its path. */
function entryBlocks(path: string, type: "File" | "Directory", size: number): Buffer[] {
  const fields = {
    path,
    mode: type === "File" ? PACKAGE_FILE_MODE : PACKAGE_FOLDER_MODE,
    uid: 0,
    gid: 0,
    size,
    mtime: PACKAGE_MTIME,
    type,
    uname: "",
    gname: "",
  } as const;
  const header = new Header(fields);
  const needsPax = header.encode();
  const block = header.block;
  if (block === undefined) throw new PackageError("package_build_failed", `no header for ${printable(path)}`);
  if (!needsPax) return [block];
  const pax = new Pax({ path, mtime: PACKAGE_MTIME, uid: 0, gid: 0, uname: "", gname: "" }).encode();
  return [pax, block];
}

function padding(size: number): Buffer {
  const remainder = size % BLOCK;
  return remainder === 0 ? Buffer.alloc(0) : Buffer.alloc(BLOCK - remainder);
}

function tooManyEntries(kind: "files" | "folders", limit: number): PackageError {
  return new PackageError("package_too_many_entries", `the skill holds more than ${limit} ${kind}`, {
    limit,
  });
}

/** Reads a file listed as regular without following a link that took its place. */
function readRegular(absolute: string, path: string): Buffer {
  const descriptor = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile())
      throw new PackageError("package_special_entry", `${printable(path)} is not a regular file`, {
        entry: printable(path),
      });
    return readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
