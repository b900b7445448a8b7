/**
 * `skillgate/store`: the managed store and its importers. Its error classes are exported
 * from the package root. See docs/store.md and docs/import.md.
 */

export { STORE_HTTP_STATUS } from "./errors.js";
export { IMPORT_HTTP_STATUS } from "./import/import-errors.js";
export type {
  FolderImportOptions,
  ImportSourceKind,
  ReplaceOption,
  SkillSourceImportOptions,
  ZipImportOptions,
} from "./importers.js";
export {
  DEFAULT_GITHUB_API,
  githubOptionsFromEnvironment,
  importFolder,
  importGithub,
  importSkillSource,
  importSourceKind,
  importZip,
  isLocalFolder,
} from "./importers.js";
export { Store } from "./store.js";
export type {
  ChangeResult,
  CreateOptions,
  ExpectedHash,
  FileChanges,
  InstallOptions,
  ListedSource,
  StoreOpenReport,
  StoreOptions,
  StoreSkill,
  StoreSkillSummary,
  UpdateOptions,
  WriteAuthor,
} from "./store-types.js";
