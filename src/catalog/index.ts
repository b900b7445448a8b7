/**
 * `skillgate/catalog`: discovery and what is built on it: decisions, the doctor, explain,
 * find, search and the skill index. `createCatalog` itself is at the package root.
 */

export { availableSkillsXml } from "./available-skills-xml.js";
export { DECISION_KINDS } from "./decisions.js";
export type { DiscoveryOptions } from "./discover.js";
export { discoverSkills, SkillDiscovery } from "./discover.js";
export type { DoctorProblem, DoctorReport } from "./doctor.js";
export { runDoctor } from "./doctor.js";
export type { ExplainResult, SkillExplanation } from "./explain.js";
export { explainSkill } from "./explain.js";
export type { FindResult, Named as NamedItem } from "./find.js";
export { find as findSkill, findByName as findSkillByName } from "./find.js";
export type { SkillSearchHit } from "./search.js";
export { SkillSearchIndex, searchSkills } from "./search.js";
export type { SkillIndexOptions, SkillIndexResult } from "./skill-index.js";
export { clipDescription, describeSkillIndex, skillIndex } from "./skill-index.js";
export type { SkillFolderSource, SourceKind } from "./sources.js";
export { skillFolderSources } from "./sources.js";
