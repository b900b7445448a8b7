import { chmodSync, closeSync, constants, fchmodSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Header, type HeaderData, Pax } from "tar";
import { removeTree } from "../../core/remove-tree.js";
import { parseRelativePath, type RelativePathOptions } from "../../core/safe-paths.js";
import { printable } from "../../store/import/entry-path.js";
import { PackageError } from "./package-errors.js";
import { DEFAULT_PACKAGE_LIMITS, maxInflatedBytes, type PackageLimits } from "./package-limits.js";

/** What an extraction wrote into the staging folder. */
export interface ExtractedPackage {
  /** Files written, relative to the staging folder, in archive order. */
  readonly files: readonly string[];
  /** Folders written (named by entries or implied by a file's path). */
  readonly folders: number;
  /** Bytes of all files together. */
  readonly totalBytes: number;
}

/** One checked entry, ready to be written. */
type PlannedEntry =
  | { readonly kind: "folder"; readonly path: string }
  | { readonly kind: "file"; readonly path: string; readonly bytes: Buffer };

const BLOCK = 512;
/** A pax record holds a path and a few fields; anything this large is not one of ours. */
const MAX_PAX_BYTES = 64 * 1024;
/** Mode of every folder the extractor writes. */
export const EXTRACTED_FOLDER_MODE = 0o700;
/** Mode of every file the extractor writes: never an execute bit, whatever the archive says. */
export const EXTRACTED_FILE_MODE = 0o600;

/**
 * Unpacks a package (`tar.gz` bytes, already checked against the manifest's SHA-256 and
 * size) into `staging`, which must not exist yet: it is created 0700 and, on any refusal,
 * removed again, so a refused package leaves nothing behind.
 *
 * Nothing is trusted before it is counted. The bytes are inflated with a hard cap of
 * {@link maxInflatedBytes} (a gzip bomb stops there: `package_too_large`). Every header is
 * parsed with tar's own `Header` and `Pax` and checked before anything is written: only
 * plain files and folders (`package_symlink`, `package_hardlink`, `package_special_entry`,
 * `package_invalid` for anything else, a global pax header or a GNU long name included);
 * each path through core's `parseRelativePath` with the archive rules and the store's byte
 * and depth limits (`package_path_not_allowed`); no path twice and no file where a folder
 * is (`package_duplicate_entry`); a file's declared size against the per-file limit before
 * its bytes are read (`package_entry_too_large`); counts (`package_too_many_entries`) and
 * the total (`package_too_large`); a header with a bad checksum or an archive cut short is
 * `package_invalid`. Only then is anything written: folders 0700 and files 0600, each
 * created exclusively without following links, so nothing lands outside `staging`.
 *
 * @throws PackageError with one of the codes above; the staging folder is gone
 */
export function extractPackage(
  bytes: Uint8Array,
  staging: string,
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): ExtractedPackage {
  const entries = planEntries(bytes, limits);
  mkdirSync(staging, { mode: EXTRACTED_FOLDER_MODE });
  try {
    chmodSync(staging, EXTRACTED_FOLDER_MODE);
    return writeEntries(staging, entries);
  } catch (error) {
    removeTree(staging);
    throw error;
  }
}

/** Inflates and checks every entry; nothing is written. */
export function planEntries(
  bytes: Uint8Array,
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): PlannedEntry[] {
  if (bytes.length > limits.maxPackageBytes)
    throw new PackageError(
      "package_too_large",
      `the package is larger than ${limits.maxPackageBytes} bytes`,
      {
        limit: limits.maxPackageBytes,
        actual: bytes.length,
      },
    );
  const tar = inflate(bytes, limits);
  const rules: RelativePathOptions = {
    dotAndEmptySegments: "drop",
    maxBytes: limits.maxPathBytes,
    maxNameBytes: limits.maxNameBytes,
    maxDepth: limits.maxDepth,
  };
  const kinds = new Map<string, "file" | "folder">();
  const planned: PlannedEntry[] = [];
  let files = 0;
  let folders = 0;
  let total = 0;
  let extended: HeaderData | undefined;
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > tar.length) throw invalid("the archive ends without its end-of-archive blocks");
    if (isZeroBlock(tar, offset)) break;
    const header = new Header(tar, offset, extended);
    // tar's Header joins a ustar prefix onto a pax path; a pax path is the whole path, as
    // every other reader (tar's own Parser, GNU tar, bsdtar) takes it.
    const paxPath = extended?.path;
    const afterPax = extended !== undefined;
    extended = undefined;
    if (!header.cksumValid) throw invalid(`the header at byte ${offset} has a bad checksum`);
    // tar's Header reads a size field that is not a number as undefined; taking that as 0
    // would read the entry's data as the next header, where other readers stop. It is a
    // broken header, whatever its checksum says.
    const size = header.size;
    if (size === undefined || !Number.isSafeInteger(size) || size < 0)
      throw invalid(`the header at byte ${offset} has no valid size`);
    const dataStart = offset + BLOCK;
    const next = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    const raw = paxPath ?? header.path ?? "";
    const shown = printable(raw);
    const type = header.type;
    if (type === "ExtendedHeader") {
      if (afterPax) throw invalid("a pax record follows another pax record");
      if (size > MAX_PAX_BYTES) throw invalid("a pax record is larger than any package needs");
      if (dataStart + size > tar.length) throw invalid("the archive is cut short inside a pax record");
      extended = Pax.parse(tar.subarray(dataStart, dataStart + size).toString("utf8"));
      offset = next;
      continue;
    }
    if (type === "SymbolicLink")
      throw new PackageError("package_symlink", `entry "${shown}" is a symbolic link`, { entry: shown });
    if (type === "Link")
      throw new PackageError("package_hardlink", `entry "${shown}" is a hard link`, { entry: shown });
    if (type === "CharacterDevice" || type === "BlockDevice" || type === "FIFO")
      throw new PackageError("package_special_entry", `entry "${shown}" is a device or a FIFO`, {
        entry: shown,
      });
    const isFolder = type === "Directory";
    if (!isFolder && type !== "File" && type !== "OldFile" && type !== "ContiguousFile")
      throw invalid(`entry "${shown}" has type ${type}, which a package never holds`);
    const checked = parseRelativePath(raw, rules);
    if (!checked.ok)
      throw new PackageError(
        "package_path_not_allowed",
        `entry "${shown}" is not allowed: ${checked.problem.reason}`,
        { entry: shown },
      );
    const path = checked.value.path;
    if (isFolder) {
      if (path === "") {
        offset = next;
        continue;
      }
      folders += claim(kinds, path, "folder", shown);
      if (folders > limits.maxFolders) throw tooMany("folders", limits.maxFolders);
      planned.push({ kind: "folder", path });
      offset = next;
      continue;
    }
    if (checked.value.isFolder) throw invalid(`file entry "${shown}" names a folder`);
    if (size > limits.maxFileBytes)
      throw new PackageError(
        "package_entry_too_large",
        `entry "${shown}" holds ${size} bytes; a package file may hold ${limits.maxFileBytes}`,
        { entry: shown, limit: limits.maxFileBytes, actual: size },
      );
    if (dataStart + size > tar.length) throw invalid(`the archive is cut short inside "${shown}"`);
    folders += claim(kinds, path, "file", shown);
    if (folders > limits.maxFolders) throw tooMany("folders", limits.maxFolders);
    files += 1;
    if (files > limits.maxFiles) throw tooMany("files", limits.maxFiles);
    total += size;
    if (total > limits.maxTotalBytes)
      throw new PackageError("package_too_large", `the files hold more than ${limits.maxTotalBytes} bytes`, {
        limit: limits.maxTotalBytes,
        actual: total,
      });
    planned.push({ kind: "file", path, bytes: tar.subarray(dataStart, dataStart + size) });
    offset = next;
  }
  if (extended !== undefined) throw invalid("a pax record is not followed by an entry");
  return planned;
}

/** Inflates with a hard cap: a stream that would grow past it is refused, not inflated. */
function inflate(bytes: Uint8Array, limits: PackageLimits): Buffer {
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b)
    throw invalid("the package is not a gzip stream");
  const cap = maxInflatedBytes(limits);
  try {
    return gunzipSync(bytes, { maxOutputLength: cap });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError)
      throw new PackageError("package_too_large", `the package inflates to more than ${cap} bytes`, {
        limit: cap,
      });
    throw new PackageError(
      "package_invalid",
      `the package is not a valid gzip stream (${code ?? "error"})`,
      {},
      {
        cause: error,
      },
    );
  }
}

/**
 * Records `path` as a file or a folder, with every folder above it; returns how many new
 * folders that made. A path seen before, or a file above it, is `package_duplicate_entry`.
 */
function claim(
  kinds: Map<string, "file" | "folder">,
  path: string,
  kind: "file" | "folder",
  shown: string,
): number {
  const segments = path.split("/");
  let made = 0;
  for (let index = 1; index < segments.length; index += 1) {
    const parent = segments.slice(0, index).join("/");
    const existing = kinds.get(parent);
    if (existing === "file") throw duplicate(shown);
    if (existing === undefined) {
      kinds.set(parent, "folder");
      made += 1;
    }
  }
  if (kinds.has(path)) throw duplicate(shown);
  kinds.set(path, kind);
  return made + (kind === "folder" ? 1 : 0);
}

function writeEntries(staging: string, entries: readonly PlannedEntry[]): ExtractedPackage {
  const files: string[] = [];
  const made = new Set<string>();
  let totalBytes = 0;
  const makeFolder = (relative: string): void => {
    if (relative === "." || relative === "" || made.has(relative)) return;
    makeFolder(dirname(relative));
    const absolute = join(staging, relative);
    mkdirSync(absolute, { mode: EXTRACTED_FOLDER_MODE });
    // Set explicitly: the process umask must not decide the mode.
    chmodSync(absolute, EXTRACTED_FOLDER_MODE);
    made.add(relative);
  };
  for (const entry of entries) {
    if (entry.kind === "folder") {
      makeFolder(entry.path);
      continue;
    }
    makeFolder(dirname(entry.path));
    const descriptor = openSync(
      join(staging, entry.path),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      EXTRACTED_FILE_MODE,
    );
    try {
      let written = 0;
      while (written < entry.bytes.length)
        written += writeSync(descriptor, entry.bytes, written, entry.bytes.length - written);
      fchmodSync(descriptor, EXTRACTED_FILE_MODE);
    } finally {
      closeSync(descriptor);
    }
    files.push(entry.path);
    totalBytes += entry.bytes.length;
  }
  return { files, folders: made.size, totalBytes };
}

function isZeroBlock(buffer: Buffer, offset: number): boolean {
  for (let index = offset; index < offset + BLOCK; index += 1) if (buffer[index] !== 0) return false;
  return true;
}

function invalid(reason: string): PackageError {
  return new PackageError("package_invalid", `the package is not a valid skill package: ${reason}`);
}

function duplicate(shown: string): PackageError {
  return new PackageError("package_duplicate_entry", `entry "${shown}" is named twice or under a file`, {
    entry: shown,
  });
}

function tooMany(kind: "files" | "folders", limit: number): PackageError {
  return new PackageError("package_too_many_entries", `the package holds more than ${limit} ${kind}`, {
    limit,
  });
}
