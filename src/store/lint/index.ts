/** Review lint: heuristic warnings for a person reviewing a skill. See docs/drafts-and-edits.md. */

export {
  formatReviewWarnings,
  type LintInput,
  lintSkill,
  lintSkillFiles,
  MAX_LINT_WARNINGS,
  MAX_REVIEW_WARNINGS_TEXT,
  MAX_WARNINGS_PER_RULE_AND_FILE,
} from "./lint-skill.js";
export { LINT_RULES, type LintRuleId, type LintWarning } from "./lint-types.js";
export { type LintLanguage, lintLanguage } from "./script-source.js";
