/**
 * `skillgate/skill`: one skill: reading and validating a `SKILL.md` folder, the lazy `Skill`,
 * its governance keys, argument schemas and content hash. See docs/skills.md.
 */

export type { ContentHash, HashedEntry } from "./content-hash.js";
export { grant as grantKey, hashSkillFolder } from "./content-hash.js";
export { describeSkillBody } from "./describe.js";
export type { SkillFields, ValidationMode } from "./fields.js";
export type { ExecutionMode, Governance, NetworkMode, Tier } from "./governance.js";
export { DEFAULT_GOVERNANCE, GOVERNANCE_KEYS } from "./governance.js";
export type { LoadedSkill, LoadSkillOptions } from "./load-skill.js";
export { loadSkillFolder } from "./load-skill.js";
export type { DeclaredPackages, NodePackages, PythonPackages } from "./packages/declared.js";
export { readDeclaredPackages } from "./packages/declared.js";
export type { JsonSchema, ParametersSchema } from "./parameters-schema.js";
export { effectiveSchema as effectiveParametersSchema } from "./parameters-schema.js";
export type { SkillBodySource, SkillInit } from "./skill.js";
export { Skill } from "./skill.js";
export type { ValidationResult } from "./validate.js";
export { validateSkillFolder } from "./validate.js";
