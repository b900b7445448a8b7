import { MAX_ALLOWED_DOMAINS } from "../core/limits.js";

/**
 * The managed store's limits (docs/store.md, "Limits"), exactly. Each is a contract: docs/store.md
 * lists them with the error code and HTTP status a refusal carries. Built-in skills are not counted
 * against {@link MAX_SKILLS}.
 */

/** Skills the store holds (built-ins not counted). Over it: `too_many_skills`. */
export const MAX_SKILLS = 200;
/** Regular files one skill may hold. Over it: `too_many_files`. Folders are bounded by the same number. */
export const MAX_FILES = 200;
/** Bytes one file of a skill may hold (1 MiB). Over it: `file_too_large`. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Bytes all files of one skill may hold together (5 MiB). Over it: `skill_too_large`. */
export const MAX_SKILL_BYTES = 5 * 1024 * 1024;
/** Bytes (UTF-8) of a text file written through create or update (256 KiB). Over it: `file_too_large`. */
export const MAX_EDITABLE_BYTES = 256 * 1024;
/** Bytes a zip upload may have (5 MiB). Over it: `zip_too_large`. */
export const MAX_ZIP_BYTES = 5 * 1024 * 1024;
/** Hosts a skill may list in `skillgate.allowed-domains`. Over it: `too_many_domains`. */
export const MAX_DOMAINS = MAX_ALLOWED_DOMAINS;
/**
 * Files an assistant draft may hold, `SKILL.md` included (docs/drafts-and-edits.md, "Limits and refusals").
 */
export const MAX_DRAFT_FILES = 40;
/** Longest relative path inside a skill, in UTF-8 bytes. */
export const MAX_PATH_BYTES = 1024;
/** Longest single file or folder name inside a skill, in UTF-8 bytes. */
export const MAX_PATH_SEGMENT_BYTES = 255;
