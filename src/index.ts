/**
 * skillgate's library API, top tier: the entry points (`createSkillgate`, `createCatalog`,
 * `runSkillScript`), the types their options and results use, and every error class a caller
 * can meet. Lower-level parts live at subpaths (`skillgate/catalog`, `skillgate/skill`,
 * `skillgate/store`, `skillgate/policy`, `skillgate/runners`, `skillgate/tools`,
 * `skillgate/extensions`, `skillgate/observe`, `skillgate/config`; see docs/library.md).
 * Explicit named exports only: what is not listed here or at a subpath is internal.
 */

export type { BootstrapCatalogOptions } from "./app/bootstrap.js";
export { bootstrapCatalog, bootstrapSkillgate } from "./app/bootstrap.js";
export type { CatalogSetup, CatalogSetupOptions } from "./app/catalog-setup.js";
export type { ApprovalMode, RunSkillScriptInput, RunSkillScriptOutcome } from "./app/run-skill-script.js";
export { exitCodeFor, runSkillScript } from "./app/run-skill-script.js";
export type { Skillgate, SkillgateOptions } from "./app/skillgate.js";
export { createSkillgate } from "./app/skillgate.js";
export { LuaSkillError } from "./capabilities/lua/lua-errors.js";
export { CapabilityError } from "./capabilities/pipeline/invocation.js";
export type { Catalog, CatalogOptions } from "./catalog/catalog.js";
export { createCatalog } from "./catalog/catalog.js";
export type { DecisionKind, DecisionReason, ReasonCode, SkillDecision } from "./catalog/decisions.js";
export type { DiscoveryResult, SourceReport } from "./catalog/discover.js";
export type { SkillgateConfig } from "./config/config.js";
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
export type { ListenErrorData } from "./core/listen-error.js";
export { ListenError } from "./core/listen-error.js";
export { InvalidExtensionError, UnknownEventError } from "./extensions/registry.js";
export { ControllerKeyChangedError } from "./nodes/agent/agent-files.js";
export { ControllerRequestError } from "./nodes/agent/controller-client.js";
export { NodeError } from "./nodes/controller/node-errors.js";
export { ManifestError } from "./nodes/manifest/manifest-errors.js";
export { PackageError } from "./nodes/packages/package-errors.js";
export { ChatLogUnreadableError } from "./observe/chat-input.js";
export type { AuditEvent, AuditEventType, AuditSink, CallStatus } from "./observe/events.js";
export type { LogFields, Logger } from "./observe/logger.js";
export type { ApprovalQueueErrorCode } from "./policy/approval-queue-errors.js";
export {
  ApprovalAlreadyAnsweredError,
  ApprovalAnswerNotOfferedError,
  ApprovalExpiredError,
  ApprovalNotFoundError,
  ApprovalQueueError,
  ApprovalQueueFullError,
  ApprovalSettledError,
} from "./policy/approval-queue-errors.js";
export type { ApprovalAnswer, ApprovalRequest } from "./policy/approvals.js";
export type { PolicyDecision } from "./policy/decide.js";
export type {
  QueueClient,
  QueueOutcomeStatus,
  QueueRequest,
  QueueResponse,
  QueueStatus,
  QueueWorkerInfo,
} from "./queue/contract.js";
export {
  DuplicateRequestError,
  QueueFullError,
  QueueRequestTooLargeError,
  QueueUnavailableError,
  WorkerCannotReachQueueError,
  WorkerLeftWithoutQueueError,
} from "./queue/queue-errors.js";
export type { RunLimits, Runner, RunRequest, RunResult, RunStatus } from "./runners/contract.js";
export { SkillUnreadableError } from "./skill/load-skill.js";
export type { Skill } from "./skill/skill.js";
export { RationaleTooLongError, TooManySourceChatsError } from "./store/drafts/draft-keys.js";
export { PlanExpiredError, PlanNotFoundError, TooManyPlansError } from "./store/edits/plan-files.js";
export { InvalidToolArgumentsError } from "./store/edits/strict-arguments.js";
export type { DraftLockReason, ScriptCheckProblem, StoreErrorCode } from "./store/errors.js";
export {
  BuiltinReadOnlyError,
  DraftLockedError,
  InvalidSkillNameError,
  ScriptCheckFailedError,
  SkillChangedError,
  SkillExistsError,
  SkillFileTooLargeError,
  SkillInvalidError,
  SkillNotFoundError,
  SkillPathNotAllowedError,
  SkillSymlinkError,
  SkillTooLargeError,
  StoreArgumentError,
  StoreBusyError,
  StoreCorruptError,
  StoreError,
  TooManyDomainsError,
  TooManyFilesError,
  TooManySkillsError,
  UnknownHashError,
} from "./store/errors.js";
export type { ImportErrorCode, ImportErrorData } from "./store/import/import-errors.js";
export { ImportRefusedError } from "./store/import/import-errors.js";
export type { Approver, ToolCallResult } from "./tools/broker.js";
export type { Turn, TurnOptions } from "./tools/turn.js";
