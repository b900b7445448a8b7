/**
 * skillgate's library API. Explicit named exports only: what is not listed here is
 * internal and may change.
 */

export { availableSkillsXml } from "./catalog/available-skills-xml.js";
export type { Catalog, CatalogOptions } from "./catalog/catalog.js";
export { createCatalog } from "./catalog/catalog.js";
export type { DecisionKind, DecisionReason, ReasonCode, SkillDecision } from "./catalog/decisions.js";
export { DECISION_KINDS } from "./catalog/decisions.js";
export type { DiscoveryOptions, DiscoveryResult, SourceReport } from "./catalog/discover.js";
export { discoverSkills, SkillDiscovery } from "./catalog/discover.js";
export type { DoctorProblem, DoctorReport } from "./catalog/doctor.js";
export { runDoctor } from "./catalog/doctor.js";
export type { ExplainResult, SkillExplanation } from "./catalog/explain.js";
export { explainSkill } from "./catalog/explain.js";
export type { FindResult, Named } from "./catalog/find.js";
export { find, findByName } from "./catalog/find.js";
export type { SkillSearchHit } from "./catalog/search.js";
export { SkillSearchIndex, searchSkills } from "./catalog/search.js";
export type { SkillIndexOptions, SkillIndexResult } from "./catalog/skill-index.js";
export { clipDescription, describeSkillIndex, skillIndex } from "./catalog/skill-index.js";
export type { SkillFolderSource, SourceKind } from "./catalog/sources.js";
export { skillFolderSources } from "./catalog/sources.js";
export type { SkillgateConfig } from "./config/config.js";
export { CONFIG_FILE, DEFAULT_CONFIG, loadConfig, parseConfig } from "./config/config.js";
export type { Diagnostic, DiagnosticCode, Severity } from "./core/diagnostics.js";
export type { ErrorCode } from "./core/errors.js";
export {
  FileTooLargeError,
  InvalidArgumentError,
  InvalidConfigError,
  isSkillgateError,
  NotFoundError,
  PathNotAllowedError,
  SkillgateError,
} from "./core/errors.js";
export type { FolderOptions, Folders } from "./core/folders.js";
export { resolveFolders } from "./core/folders.js";
export { MAX_SKILL_CHARS, SKILL_DESC_MAX } from "./core/limits.js";
export type { ContentHash, HashedEntry } from "./skill/content-hash.js";
export { grant, hashSkillFolder } from "./skill/content-hash.js";
export { describe } from "./skill/describe.js";
export type { SkillFields, ValidationMode } from "./skill/fields.js";
export type { ExecutionMode, Governance, NetworkMode, Tier } from "./skill/governance.js";
export { DEFAULT_GOVERNANCE, GOVERNANCE_KEYS } from "./skill/governance.js";
export type { LoadedSkill, LoadSkillOptions } from "./skill/load-skill.js";
export { loadSkillFolder, SkillUnreadableError } from "./skill/load-skill.js";
export type { JsonSchema, ParametersSchema } from "./skill/parameters-schema.js";
export { effectiveSchema } from "./skill/parameters-schema.js";
export type { SkillBodySource, SkillInit } from "./skill/skill.js";
export { Skill } from "./skill/skill.js";
