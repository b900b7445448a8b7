/**
 * Errors skillgate throws to its callers. Each has a stable string `code` that callers,
 * HTTP responses and tests match on, and typed `data` for details. Messages may change;
 * codes do not.
 *
 * User content (a bad SKILL.md, a folder that escapes its root) is reported as a
 * {@link Diagnostic} instead: these classes are for refusals of an operation.
 */

/** Every stable error code skillgate uses, in one place so none is spelled twice. */
export type ErrorCode =
  | "invalid_argument"
  | "invalid_config"
  | "not_found"
  | "path_not_allowed"
  | "file_too_large"
  | "limit_exceeded"
  | "skill_changed"
  | "skill_invalid"
  | "skill_unreadable"
  | "io_error"
  // The managed store, see docs/store.md.
  | "too_many_skills"
  | "too_many_domains"
  | "unknown_hash"
  | "skill_exists"
  | "builtin_read_only"
  | "invalid_skill_name"
  | "store_corrupt"
  | "store_busy"
  // Skill import (zip and GitHub), see docs/import.md.
  | "zip_too_large"
  | "invalid_zip"
  | "symlink_not_allowed"
  | "unsupported_entry"
  | "encrypted_entry"
  | "duplicate_entry"
  | "entry_name_mismatch"
  | "source_changed"
  | "too_many_files"
  | "skill_too_large"
  | "zip_bomb"
  | "missing_skill_file"
  | "not_a_folder"
  | "invalid_github_url"
  | "github_not_found"
  | "github_forbidden"
  | "github_rate_limited"
  | "github_timeout"
  | "github_error"
  | "github_bad_response"
  | "github_response_too_large"
  | "github_truncated"
  // Script check before save, drafts, edit plans, see docs/drafts-and-edits.md.
  | "script_check_failed"
  | "too_many_source_chats"
  | "rationale_too_long"
  | "draft_locked"
  | "invalid_draft_arguments"
  | "invalid_edit_arguments"
  | "plan_not_found"
  | "plan_expired"
  | "too_many_plans"
  // The chat log, see docs/audit.md.
  | "chat_log_unreadable"
  // Extensions and hooks, see docs/extensions.md.
  | "unknown_event"
  | "invalid_extension"
  | "unknown_command"
  // Out-of-band approvals (the approval queue), see docs/approvals.md.
  | "approval_not_found"
  | "approval_expired"
  | "approval_answer_not_offered"
  | "approval_already_answered"
  | "approval_settled"
  | "approval_queue_full"
  // Listening for connections (skillgate mcp --http), see docs/mcp.md.
  | "port_in_use"
  | "port_not_permitted"
  | "host_not_bindable"
  // Named servers: the node registry, enrolment and agent routes, see docs/nodes.md.
  | "invalid_node_name"
  | "node_exists"
  | "node_not_found"
  | "enrolment_refused"
  | "nodes_registry_corrupt"
  | "node_unauthorized"
  | "node_package_refused"
  | "controller_not_ready"
  // The worker pool (queue mode), see docs/queue.md.
  | "queue_full"
  | "queue_unavailable"
  | "duplicate_request"
  // Node packages, skills manifests and SkillSync, see docs/nodes.md.
  | "package_invalid"
  | "package_symlink"
  | "package_hardlink"
  | "package_special_entry"
  | "package_path_not_allowed"
  | "package_duplicate_entry"
  | "package_entry_too_large"
  | "package_too_large"
  | "package_too_many_entries"
  | "package_hash_mismatch"
  | "package_sha256_mismatch"
  | "package_size_mismatch"
  | "package_stale"
  | "package_not_found"
  | "package_build_failed"
  | "manifest_bad_signature"
  | "manifest_replayed"
  | "manifest_expired"
  | "manifest_wrong_node"
  | "manifest_invalid"
  | "controller_unreachable"
  | "controller_timeout"
  | "controller_refused"
  | "controller_bad_response"
  | "controller_response_too_large"
  | "controller_key_changed"
  | "agent_files_invalid"
  // The node agent (skillgate node-agent), see docs/nodes.md.
  | "node_not_enrolled"
  | "node_name_mismatch"
  // Lua skills and their generations, see docs/capabilities.md ("Lua skills", "Hot reload").
  | LuaSkillErrorCode
  | "generation_not_found"
  | "generation_not_waiting"
  // The capability plane's invocation pipeline, see docs/capabilities.md.
  | InvocationRefusalCode
  | InvocationFailureCode;

/**
 * The codes of the capability plane, each group a list that code can iterate (the pipeline's
 * audit status, which codes a provider may end a call with) and {@link ErrorCode} takes its
 * names from: one place, so no list elsewhere repeats them.
 */

/** A Lua skill's own codes: its call's bounds and errors, its load, its host API refusals. */
export const LUA_SKILL_ERROR_CODES = [
  "lua_cpu_limit",
  "lua_memory_limit",
  "lua_error",
  "lua_load_failed",
  "lua_output_invalid",
  "lua_state_closed",
  "lua_host_refused",
  "capability_not_allowed",
] as const;

/** A code of {@link LUA_SKILL_ERROR_CODES}. */
export type LuaSkillErrorCode = (typeof LUA_SKILL_ERROR_CODES)[number];

/** How the invocation pipeline refuses a call before any provider runs (the audit's `refused`). */
export const INVOCATION_REFUSAL_CODES = [
  "capability_unknown",
  "capability_not_in_runtime",
  "caller_not_permitted",
  "provider_unknown",
  "payload_not_object",
  "payload_too_large",
  "payload_too_deep",
  "payload_too_many_keys",
  "payload_prototype_key",
  "payload_skill_path",
  "payload_command_template",
  "payload_env",
  "payload_shell",
  "payload_host_path",
  "payload_mode_override",
  "capability_missing_schema",
  "input_invalid",
  "capability_busy",
  "sampling_unavailable",
  "prompt_too_large",
] as const;

/** A code of {@link INVOCATION_REFUSAL_CODES}. */
export type InvocationRefusalCode = (typeof INVOCATION_REFUSAL_CODES)[number];

/** How a call that reached its provider ends without an answer, whatever the provider. */
export const INVOCATION_FAILURE_CODES = [
  "output_invalid",
  "capability_timeout",
  "capability_interrupted",
  "capability_failed",
] as const;

/** A code of {@link INVOCATION_FAILURE_CODES}. */
export type InvocationFailureCode = (typeof INVOCATION_FAILURE_CODES)[number];

/**
 * The mark every {@link SkillgateError} carries, under a registry symbol so it is the same key
 * in every copy of the package: an application that ends up with two copies (a dependency
 * pins another version) still recognises the other copy's errors. `instanceof` cannot.
 */
const SKILLGATE_ERROR_MARKER = Symbol.for("skillgate.error");

/** The base of every error skillgate throws on purpose. */
export class SkillgateError<Data extends object = Record<string, unknown>> extends Error {
  /** A stable, machine-readable reason; never reworded. */
  readonly code: ErrorCode;
  /** Details a caller may show or act on. */
  readonly data: Data;

  constructor(code: ErrorCode, message: string, data: Data, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }
}

/** A caller passed something malformed (an option, a CLI argument). */
export class InvalidArgumentError extends SkillgateError<{ argument: string }> {
  constructor(argument: string, message: string) {
    super("invalid_argument", message, { argument });
  }
}

/** The configuration file cannot be read or does not have the documented shape. */
export class InvalidConfigError extends SkillgateError<{ file: string; problems: string[] }> {
  constructor(file: string, problems: string[]) {
    super("invalid_config", `configuration ${file} is invalid: ${problems.join("; ")}`, { file, problems });
  }
}

/** A named thing (a skill, a folder) does not exist; `candidates` helps the caller retry. */
export class NotFoundError extends SkillgateError<{ kind: string; name: string; candidates: string[] }> {
  constructor(kind: string, name: string, candidates: string[] = []) {
    const hint = candidates.length > 0 ? ` (did you mean: ${candidates.join(", ")})` : "";
    super("not_found", `no ${kind} named "${name}"${hint}`, { kind, name, candidates });
  }
}

/** A path resolves outside the folder it must stay in. */
export class PathNotAllowedError extends SkillgateError<{ path: string; root: string }> {
  constructor(path: string, root: string) {
    super("path_not_allowed", `${path} is outside ${root}`, { path, root });
  }
}

/** A file is larger than the limit that applies to it. */
export class FileTooLargeError extends SkillgateError<{ path: string; size: number; limit: number }> {
  constructor(path: string, size: number, limit: number) {
    super("file_too_large", `${path} is ${size} bytes; the limit is ${limit}`, { path, size, limit });
  }
}

// On the prototype, not enumerable: every subclass inherits it, and it never shows in JSON or logs.
Object.defineProperty(SkillgateError.prototype, SKILLGATE_ERROR_MARKER, { value: true });

/**
 * True when `error` is a SkillgateError, optionally with the given code. It checks the mark
 * (see {@link SKILLGATE_ERROR_MARKER}), not the class, so an error from another copy of
 * skillgate counts too.
 */
export function isSkillgateError(error: unknown, code?: ErrorCode): error is SkillgateError {
  if (typeof error !== "object" || error === null) return false;
  if ((error as { [SKILLGATE_ERROR_MARKER]?: unknown })[SKILLGATE_ERROR_MARKER] !== true) return false;
  return code === undefined || (error as { code?: unknown }).code === code;
}

/** `ErrorName: message` for any thrown value, the form skillgate shows to models and people. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${String(error)}`;
}
