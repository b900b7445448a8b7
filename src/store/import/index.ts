/**
 * Skill import (a zip upload, a local folder or a GitHub folder) and the script checker, for the store to
 * wire in: each importer unpacks into a target folder it is given (the store's staging
 * folder) under limits it is given, all or nothing. See docs/import.md.
 */

export type { UploadSource } from "./bounded-read.js";
export {
  type GithubImportOptions,
  type GithubImportResult,
  type ImportProgress,
  importGithubFolder,
} from "./github-import.js";
export { GITHUB_TREE_FORM, type GithubFolderAddress, parseGithubTreeUrl } from "./github-url.js";
export {
  IMPORT_HTTP_STATUS,
  type ImportErrorCode,
  type ImportErrorData,
  ImportRefusedError,
  isImportRefusal,
} from "./import-errors.js";
export { DEFAULT_IMPORT_LIMITS, type ImportLimits } from "./limits.js";
export { copySkillFolder, type FolderCopyOptions } from "./read-folder.js";
export { checkSkillScripts, type ScriptCheckOptions } from "./script-check.js";
export type {
  ScriptCheckResult,
  ScriptLanguage,
  ScriptProblem,
  ScriptProblemCode,
} from "./script-problems.js";
export { type ImportResult, unpackSkillZip } from "./unpack-zip.js";
