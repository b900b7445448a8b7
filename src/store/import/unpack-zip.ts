import yauzl from "yauzl";
import { readBounded, type UploadSource } from "./bounded-read.js";
import { crc32 } from "./crc32.js";
import { normaliseEntryPath, printable } from "./entry-path.js";
import { ImportRefusedError } from "./import-errors.js";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits, maxZipEntries } from "./limits.js";
import { SkillFileSet } from "./skill-file-set.js";
import { rootSkillFiles } from "./skill-root.js";
import { writeSkillFolder } from "./write-skill-folder.js";
import { classifyZipEntry } from "./zip-entry-kind.js";

/** What an import wrote. */
export interface ImportResult {
  /** The paths written, relative to the target folder, sorted. */
  readonly files: readonly string[];
  /** Bytes written in all. */
  readonly totalBytes: number;
  /** The archive's top folder that was stripped, when the skill was inside one. */
  readonly strippedFolder: string | undefined;
}

/** Folders some zip tools add that are never part of a skill (macOS resource forks). */
const SKIPPED_TOP_FOLDERS = new Set(["__MACOSX"]);
const STORED = 0;
const DEFLATED = 8;

/**
 * Unpacks a skill from a zip archive into `targetFolder` (absent or empty), or refuses it
 * and leaves the target as it was.
 *
 * The upload is read through a bound and refused past `limits.maxZipBytes` before it is all
 * read. Then every entry is checked and inflated into memory, counting the bytes that really
 * come out (headers are only trusted to refuse early, never to accept): each file against
 * the per-file limit, all of them against the skill limit, and each entry and the whole
 * archive against the compression ratio. Only when every entry has passed is anything
 * written, all at once (see {@link writeSkillFolder}). The skill may be at the root of the
 * archive or inside one top folder, which is stripped; `__MACOSX/` entries are skipped.
 *
 * @throws ImportRefusedError with one of the codes in docs/import.md
 */
export async function unpackSkillZip(
  source: UploadSource,
  targetFolder: string,
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
): Promise<ImportResult> {
  const zipBytes = await readBounded(source, limits.maxZipBytes, (seen) => {
    return new ImportRefusedError("zip_too_large", `the zip is larger than ${limits.maxZipBytes} bytes`, {
      limit: limits.maxZipBytes,
      actual: seen,
    });
  });
  const fileSet = await readZipEntries(zipBytes, limits);
  const rooted = rootSkillFiles(fileSet.files, { allowTopFolder: true });
  await writeSkillFolder(rooted.files, targetFolder);
  return {
    files: [...rooted.files.keys()].sort(),
    totalBytes: fileSet.totalBytes,
    strippedFolder: rooted.strippedFolder,
  };
}

/** Checks and inflates every entry of the archive into memory. */
async function readZipEntries(zipBytes: Buffer, limits: ImportLimits): Promise<SkillFileSet> {
  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await yauzl.fromBufferPromise(zipBytes, {
      lazyEntries: true,
      // Names are decoded and checked here, so that each unsafe form gets its own code.
      decodeStrings: false,
      // Sizes are checked here, on the bytes that come out, with our own codes.
      validateEntrySizes: false,
    });
  } catch (error) {
    throw zipFormatError(error);
  }
  const maxEntries = maxZipEntries(limits);
  if (zipfile.entryCount > maxEntries) {
    zipfile.close();
    throw new ImportRefusedError("too_many_files", `the zip lists more than ${maxEntries} entries`, {
      limit: maxEntries,
      actual: zipfile.entryCount,
    });
  }
  const fileSet = new SkillFileSet(limits);
  const inflated = { total: 0 };
  try {
    for await (const entry of zipfile.eachEntry()) {
      await readEntry(zipfile, entry, fileSet, limits, zipBytes.length, inflated);
    }
  } catch (error) {
    throw error instanceof ImportRefusedError ? error : zipFormatError(error);
  } finally {
    zipfile.close();
  }
  return fileSet;
}

async function readEntry(
  zipfile: yauzl.ZipFile,
  entry: yauzl.Entry,
  fileSet: SkillFileSet,
  limits: ImportLimits,
  zipSize: number,
  inflated: { total: number },
): Promise<void> {
  const rawName = yauzl.getFileNameLowLevel(
    entry.generalPurposeBitFlag,
    entry.fileNameRaw,
    entry.extraFields,
    // Strict: keep backslashes as they are, so they are refused rather than reinterpreted.
    true,
  );
  await checkLocalHeaderName(zipfile, entry, rawName);
  const { path, isFolder } = normaliseEntryPath(rawName);
  if (SKIPPED_TOP_FOLDERS.has(path.split("/")[0] ?? "")) return;
  const shown = path === "" ? printable(rawName) : path;
  if (entry.isEncrypted()) {
    throw new ImportRefusedError("encrypted_entry", `${shown} is encrypted; encrypted archives are refused`, {
      path: shown,
    });
  }
  const { kind, executable } = classifyZipEntry(
    shown,
    isFolder,
    entry.versionMadeBy,
    entry.externalFileAttributes,
  );
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
    throw new ImportRefusedError(
      "unsupported_entry",
      `${shown} uses compression method ${entry.compressionMethod}; only stored and deflated entries are read`,
      { path: shown },
    );
  }
  if (kind === "folder") {
    if (entry.uncompressedSize !== 0 || entry.compressedSize > 2) {
      throw new ImportRefusedError("invalid_zip", `folder entry ${shown} carries data`, { path: shown });
    }
    fileSet.addFolder(path);
    return;
  }
  fileSet.reserveFile(path, entry.uncompressedSize);
  const bytes = await inflateEntry(zipfile, entry, path, fileSet, limits, zipSize, inflated);
  fileSet.addFile(path, bytes, executable);
}

/**
 * Refuses an entry whose local header names it differently from the central directory.
 * skillgate reads names from the central directory; a tool that streams local headers
 * (`unzip -` style readers, some viewers) would show a reviewer other names. The raw bytes must
 * be equal, and so must the names as decoded (the UTF-8 flag and the Unicode path extra field
 * of the local header can change a name with the same bytes). Skipped entries are checked too:
 * another tool would not skip them under their other name.
 */
async function checkLocalHeaderName(
  zipfile: yauzl.ZipFile,
  entry: yauzl.Entry,
  centralName: string,
): Promise<void> {
  const local = await zipfile.readLocalFileHeaderPromise(entry);
  let localName: string;
  try {
    localName = yauzl.getFileNameLowLevel(
      local.generalPurposeBitFlag,
      local.fileName,
      yauzl.parseExtraFields(local.extraField),
      true,
    );
  } catch (error) {
    throw zipFormatError(error);
  }
  if (local.fileName.equals(entry.fileNameRaw) && localName === centralName) return;
  const shown = printable(centralName);
  throw new ImportRefusedError(
    "entry_name_mismatch",
    `${shown} is named ${printable(localName)} in its local header; the archive names one file two ways`,
    { path: shown, localPath: printable(localName) },
  );
}

/** Inflates one entry, judging every chunk on the bytes that really came out. */
async function inflateEntry(
  zipfile: yauzl.ZipFile,
  entry: yauzl.Entry,
  path: string,
  fileSet: SkillFileSet,
  limits: ImportLimits,
  zipSize: number,
  inflated: { total: number },
): Promise<Buffer> {
  const stream = await zipfile.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  let size = 0;
  let checksum = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    inflated.total += bytes.length;
    checkRatio(path, size, entry.compressedSize, limits, "entry");
    checkRatio(path, inflated.total, zipSize, limits, "archive");
    fileSet.checkFileSize(path, size);
    checksum = crc32(bytes, checksum);
    chunks.push(bytes);
  }
  if (size !== entry.uncompressedSize) {
    throw new ImportRefusedError(
      "invalid_zip",
      `${path} inflates to ${size} bytes but its header says ${entry.uncompressedSize}`,
      { path, actual: size },
    );
  }
  if (checksum !== entry.crc32) {
    throw new ImportRefusedError("invalid_zip", `${path} is corrupt: its checksum does not match`, { path });
  }
  return Buffer.concat(chunks, size);
}

/**
 * Refuses inflation beyond `maxCompressionRatio` once past the floor. The floor keeps small,
 * very repetitive files (a table of zeros, a padded header) acceptable.
 */
function checkRatio(
  path: string,
  inflatedBytes: number,
  compressedBytes: number,
  limits: ImportLimits,
  scope: "entry" | "archive",
): void {
  if (inflatedBytes <= limits.bombFloorBytes) return;
  if (inflatedBytes <= limits.maxCompressionRatio * Math.max(compressedBytes, 1)) return;
  const subject = scope === "entry" ? path : "the archive";
  throw new ImportRefusedError(
    "zip_bomb",
    `${subject} inflates more than ${limits.maxCompressionRatio}:1 (${inflatedBytes} bytes from ${compressedBytes})`,
    { path, limit: limits.maxCompressionRatio, actual: inflatedBytes },
  );
}

/** Maps an error from the zip reader or zlib to a stable code. */
function zipFormatError(error: unknown): ImportRefusedError {
  const message = error instanceof Error ? error.message : String(error);
  if (/encrypt/i.test(message)) {
    return new ImportRefusedError(
      "encrypted_entry",
      `the zip holds encrypted entries (${message})`,
      {},
      { cause: error },
    );
  }
  return new ImportRefusedError(
    "invalid_zip",
    `the upload is not a readable zip: ${message}`,
    {},
    { cause: error },
  );
}
