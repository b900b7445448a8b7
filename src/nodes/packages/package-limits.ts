import { MAX_NAME_LENGTH } from "../../core/limits.js";
import { MAX_IMPORT_DEPTH, MAX_IMPORT_NAME_BYTES, MAX_IMPORT_PATH_BYTES } from "../../store/import/limits.js";
import { MAX_FILE_BYTES, MAX_FILES, MAX_SKILL_BYTES } from "../../store/limits.js";

/**
 * What one package may hold: the managed store's limits (docs/store.md, "Limits"), so any
 * skill the store accepts fits and nothing larger is ever built or unpacked. The controller
 * refuses to build past them and the agent refuses to unpack past them, with the same codes.
 */
export interface PackageLimits {
  /** Regular files (`package_too_many_entries`). */
  readonly maxFiles: number;
  /** Folder entries (`package_too_many_entries`); the store bounds folders by its file limit. */
  readonly maxFolders: number;
  /** Bytes one file may hold, counted on the bytes in the archive (`package_entry_too_large`). */
  readonly maxFileBytes: number;
  /** Bytes all files hold together (`package_too_large`). */
  readonly maxTotalBytes: number;
  /** Bytes of the `tar.gz` itself, as downloaded (`package_too_large`). */
  readonly maxPackageBytes: number;
  /** Longest entry path, deepest nesting and longest name (`package_path_not_allowed`). */
  readonly maxPathBytes: number;
  readonly maxDepth: number;
  readonly maxNameBytes: number;
}

/** The store's limits: 200 files, 200 folders, 1 MiB a file, 5 MiB a skill. */
export const DEFAULT_PACKAGE_LIMITS: PackageLimits = Object.freeze({
  maxFiles: MAX_FILES,
  maxFolders: MAX_FILES,
  maxFileBytes: MAX_FILE_BYTES,
  maxTotalBytes: MAX_SKILL_BYTES,
  // Incompressible content plus a header block (and at most a pax block pair) per entry and
  // the end blocks: a gzip of a tar never grows past this for a skill inside the limits.
  maxPackageBytes: MAX_SKILL_BYTES + (MAX_FILES * 2 + 8) * 3 * 512 + 64 * 1024,
  maxPathBytes: MAX_IMPORT_PATH_BYTES,
  maxDepth: MAX_IMPORT_DEPTH,
  maxNameBytes: MAX_IMPORT_NAME_BYTES,
});

/**
 * The most bytes a package may inflate to: its files' limit plus a header (and a pax pair)
 * for every entry and generous room for the end-of-archive padding other tools add. The
 * gzip stream is cut there, so a gzip bomb never inflates further (`package_too_large`).
 */
export function maxInflatedBytes(limits: PackageLimits): number {
  return limits.maxTotalBytes + (limits.maxFiles + limits.maxFolders + 8) * 3 * 512 + 20 * 512;
}

/** Skill names a package or a manifest may carry: what a skill folder may be named, at most 64 characters. */
export const MAX_PACKAGE_NAME_LENGTH = MAX_NAME_LENGTH;
