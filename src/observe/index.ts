/**
 * The observe layer: the audit log, the chat log, metrics and information lines. One import
 * for the layers above (tools, the turn, surfaces).
 */

export type { RepairedCall } from "./argument-repair.js";
export { reportArgumentRepairs } from "./argument-repair.js";
export { AUDIT_FIELDS, parseAuditLine, serialiseAuditEvent } from "./audit-line.js";
export type { AuditLogOptions } from "./audit-log.js";
export { AUDIT_FILE, AUDIT_FOLDER, AuditLog, DEFAULT_AUDIT_MAX_BYTES } from "./audit-log.js";
export type { AuditQuery } from "./audit-read.js";
export { auditFiles, queryAuditFolder } from "./audit-read.js";
export type { OutcomeRecorder } from "./audit-sinks.js";
export { chatIssuesSink, combineAuditSinks, MemoryAuditSink } from "./audit-sinks.js";
export type { ChatKind, ChatRef, ChatScope, MessageRole } from "./chat-input.js";
export {
  ChatLogUnreadableError,
  MAX_CHAT_ID_LENGTH,
  MAX_CHAT_TITLE_CHARS,
  MAX_GRANT_LENGTH,
  MAX_MESSAGE_CHARS,
} from "./chat-input.js";
export type {
  ChatCounts,
  ChatLogOptions,
  ChatSummary,
  ListChatsOptions,
  NewMessage,
  ReviewsReader,
} from "./chat-log.js";
export { CHAT_DATABASE_FILE, ChatLog, DEFAULT_CHAT_LIST_LIMIT, MAX_CHAT_LIST_LIMIT } from "./chat-log.js";
export { CHAT_SCHEMA_VERSION } from "./chat-schema.js";
export type { Transcript, TranscriptMessage, TranscriptOptions } from "./chat-transcript.js";
export { DEFAULT_TRANSCRIPT_CHARS, MAX_TRANSCRIPT_CHARS, renderTranscript } from "./chat-transcript.js";
export type { AuditEvent, AuditEventType, AuditSink, CallStatus } from "./events.js";
export type { LogFields, Logger } from "./logger.js";
export { silentLogger, stderrLogger, streamLogger } from "./logger.js";
export type { ArgumentRepairKind } from "./metrics.js";
export {
  ARGUMENTS_COERCED_COUNTER,
  argumentsCoercedCounter,
  METER_NAME,
  recordArgumentRepair,
  skillgateMeter,
} from "./metrics.js";
