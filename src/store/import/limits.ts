/**
 * The limits an import is checked against (docs/import.md, "Limits"). They are the store's limits
 * (docs/store.md, "Limits": 200 files a skill, 1 MiB a file, 5 MiB a skill, 5 MiB a zip, 256 KiB an
 * editable text file), passed in as a parameter so the importers can be tested alone and the store
 * can hand over its own constants.
 */
export interface ImportLimits {
  /** Files a skill may hold (folders are not counted). */
  readonly maxFiles: number;
  /** Bytes one file may hold, counted on the bytes actually produced, never on a header. */
  readonly maxFileBytes: number;
  /** Bytes all files of a skill may hold together, counted the same way. */
  readonly maxSkillBytes: number;
  /** Bytes a zip archive may have; a larger upload is refused before it is all read. */
  readonly maxZipBytes: number;
  /** Bytes of a text file the owner may edit in place; carried for the store, not used by import. */
  readonly maxEditableBytes: number;
  /**
   * The largest inflated-to-compressed ratio an entry or a whole archive may have once it
   * has inflated past {@link ImportLimits.bombFloorBytes}; beyond it the archive is a `zip_bomb`.
   */
  readonly maxCompressionRatio: number;
  /** Inflated bytes below which the ratio is not judged: small files of repeated text are fine. */
  readonly bombFloorBytes: number;
}

/**
 * The store's limits (docs/store.md, "Limits") and a 100:1 bomb ratio past 64 KiB (docs/import.md,
 * "Limits").
 */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = Object.freeze({
  maxFiles: 200,
  maxFileBytes: 1024 * 1024,
  maxSkillBytes: 5 * 1024 * 1024,
  maxZipBytes: 5 * 1024 * 1024,
  maxEditableBytes: 256 * 1024,
  maxCompressionRatio: 100,
  bombFloorBytes: 64 * 1024,
});

/**
 * Entries a zip may list in all (files, folders and skipped metadata together): four per
 * allowed file, so a skill of 200 files in 200 folders fits, while an archive that lists a
 * hundred thousand empty entries is refused before they are walked.
 */
export function maxZipEntries(limits: ImportLimits): number {
  return limits.maxFiles * 4 + 16;
}

/** Deepest folder nesting accepted inside a skill; deeper paths are `path_not_allowed`. */
export const MAX_IMPORT_DEPTH = 16;
/** Longest path inside a skill, in UTF-8 bytes. */
export const MAX_IMPORT_PATH_BYTES = 1024;
/** Longest single file or folder name, in UTF-8 bytes (the common file system limit). */
export const MAX_IMPORT_NAME_BYTES = 255;
