/**
 * The owner's views (docs/http-api.md): what the web UI's pages and the CLI show that is more
 * than one store call. Each view is one file; surfaces call these and print or answer.
 */

export { createOwnerSkill, type NewOwnerSkill, newSkillFile } from "./create-skill.js";
export {
  type GovernanceView,
  type OwnerSkillDetail,
  readSkillDetail,
  type ScriptSchema,
  type SkillDecisionView,
} from "./skill-detail.js";
export { authorOf, type SkillFileFacts, skillFileFacts } from "./skill-facts.js";
export { listSkillSummaries, type OwnerSkillSummary, SkillSummaryCache } from "./skill-summaries.js";
