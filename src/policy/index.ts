/**
 * `skillgate/policy`: tiers, the rule table and its decisions, grants, and approvals (in
 * process and the out-of-band queue). Its error classes are exported from the package root.
 * See docs/policy.md and docs/approvals.md.
 */

export type { ApprovalQueueResult, OwnerAnswer, QueueApprover } from "./approval-queue.js";
export {
  APPROVALS_FOLDER,
  ApprovalQueue,
  MAX_APPROVAL_FILE_BYTES,
  MAX_QUEUED_APPROVALS,
} from "./approval-queue.js";
export { ApprovalBook } from "./approvals.js";
export { DEFAULT_DENY_RULE, narrow as narrowEffect, PolicyTable } from "./decide.js";
export type { GrantScope, GrantStore } from "./grants.js";
export { MemoryGrantStore } from "./grants.js";
export type { ConfiguredRule, PolicyCall, PolicyContext, PolicyEffect, PolicyRule } from "./rules.js";
export { BUILTIN_RULES, configuredRule } from "./rules.js";
export type { ToolTier, TurnMode } from "./tiers.js";
