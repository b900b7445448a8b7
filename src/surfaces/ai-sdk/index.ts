/**
 * `skillgate/ai-sdk`: a turn's tools for the Vercel AI SDK (`ai` 6, an optional peer
 * dependency). Every call goes through skillgate's broker; see docs/ai-sdk.md.
 */

export type { SkillgateToolInput } from "./input-schema.js";
export { hasPendingApproval } from "./stop-conditions.js";
export type {
  SkillgateTool,
  SkillgateToolCall,
  SkillgateToolResult,
  SkillgateToolSet,
  SkillgateToolsOptions,
} from "./tools.js";
export { isSkillgateToolResult, skillgateTools } from "./tools.js";
