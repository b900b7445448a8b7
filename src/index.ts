/**
 * skillgate's library API. Explicit named exports only: what is not listed here is
 * internal and may change.
 */

export type { BootstrapCatalogOptions } from "./app/bootstrap.js";
export { bootstrapCatalog, bootstrapSkillgate } from "./app/bootstrap.js";
export type { CatalogSetup, CatalogSetupOptions } from "./app/catalog-setup.js";
export type { ApprovalMode, RunSkillScriptInput, RunSkillScriptOutcome } from "./app/run-skill-script.js";
export { exitCodeFor, runSkillScript } from "./app/run-skill-script.js";
export type { Skillgate, SkillgateOptions } from "./app/skillgate.js";
export { createSkillgate } from "./app/skillgate.js";
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
export type {
  AfterToolAnswer,
  AfterToolEvent,
  ApprovalEvent,
  BeforeToolAnswer,
  BeforeToolEvent,
  EventName,
  EventPayloads,
  EventScope,
  Hook,
} from "./extensions/events.js";
export { EVENTS, isEventName } from "./extensions/events.js";
export type { ExtensionSettings } from "./extensions/host.js";
export { ExtensionHost } from "./extensions/host.js";
export type { ExtensionFolderOptions, HooksFileLocation, LoadOptions } from "./extensions/load.js";
export { EXTENSION_FILE_KINDS, extensionFolders, HOOKS_FILE, hooksFiles, load } from "./extensions/load.js";
export type { RegisteredHook, RegistrySummary } from "./extensions/registry.js";
export { InvalidExtensionError, MAX_NOTES, Registry, UnknownEventError } from "./extensions/registry.js";
export type { ShellHookOptions } from "./extensions/shell-hooks.js";
export { loadShellHooks } from "./extensions/shell-hooks.js";
export type {
  ApprovalCall,
  ApprovalPolicy,
  ExtensionCommand,
  ExtensionSkillInit,
  ExtensionTool,
  ExtensionToolContext,
  ExtensionToolTier,
  HookInfo,
  Registrar,
} from "./extensions/types.js";
export { AuditLog } from "./observe/audit-log.js";
export { ChatLog } from "./observe/chat-log.js";
export type { AuditEvent, AuditEventType, AuditSink, CallStatus } from "./observe/events.js";
export type { Logger } from "./observe/logger.js";
export type { ApprovalQueueResult, OwnerAnswer, QueueApprover } from "./policy/approval-queue.js";
export {
  APPROVALS_FOLDER,
  ApprovalQueue,
  MAX_APPROVAL_FILE_BYTES,
  MAX_QUEUED_APPROVALS,
} from "./policy/approval-queue.js";
export type { ApprovalQueueErrorCode } from "./policy/approval-queue-errors.js";
export {
  ApprovalAlreadyAnsweredError,
  ApprovalAnswerNotOfferedError,
  ApprovalExpiredError,
  ApprovalNotFoundError,
  ApprovalQueueError,
  ApprovalQueueFullError,
} from "./policy/approval-queue-errors.js";
export type { ApprovalAnswer, ApprovalRequest } from "./policy/approvals.js";
export { ApprovalBook } from "./policy/approvals.js";
export type { PolicyDecision } from "./policy/decide.js";
export { DEFAULT_DENY_RULE, narrow, PolicyTable } from "./policy/decide.js";
export type { GrantScope, GrantStore } from "./policy/grants.js";
export { MemoryGrantStore } from "./policy/grants.js";
export type { ConfiguredRule, PolicyCall, PolicyContext, PolicyEffect, PolicyRule } from "./policy/rules.js";
export { BUILTIN_RULES, configuredRule } from "./policy/rules.js";
export type { ToolTier, TurnMode } from "./policy/tiers.js";
export type {
  RunLimits,
  Runner,
  RunRefusalCode,
  RunRequest,
  RunResult,
  RunStatus,
  VerifiedSnapshot,
} from "./runners/contract.js";
export { DEFAULT_RUN_LIMITS } from "./runners/contract.js";
export type { LocalRunnerOptions } from "./runners/local-runner.js";
export { LocalRunner } from "./runners/local-runner.js";
export type { RunObserver } from "./runners/observed.js";
export type { ModeRunners, RunnerRouterOptions } from "./runners/router.js";
export { RunnerRouter } from "./runners/router.js";
export type { SnapshotOutcome, SnapshotStoreOptions } from "./runners/snapshot.js";
export { SnapshotStore } from "./runners/snapshot.js";
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
export { importGithub, importZip } from "./store/importers.js";
export { Store } from "./store/store.js";
export type { ChangeResult, StoreOptions, StoreSkill, StoreSkillSummary } from "./store/store-types.js";
export type { ArgumentRepair, NormalisedArguments } from "./tools/arguments.js";
export { ARGUMENT_MESSAGES, normaliseArguments } from "./tools/arguments.js";
export type { Approver, BrokerOptions, CallScope, ToolCallResult } from "./tools/broker.js";
export { Broker } from "./tools/broker.js";
export type { BeforeToolVerdict, CallHooks } from "./tools/call-hooks.js";
export { APPROVAL_POLICY_RULE, HOOK_RULE, narrowByHooks } from "./tools/call-hooks.js";
export { registryHooks } from "./tools/extension-hooks.js";
export type { SkillScope } from "./tools/skill-view.js";
export type { AnyTool, CallSubject, ToolDefinition, ToolOutput } from "./tools/tool.js";
export type { Turn, TurnOptions } from "./tools/turn.js";
export { createTurn } from "./tools/turn.js";
