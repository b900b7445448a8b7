import type { Diagnostic } from "../core/diagnostics.js";
import { type ErrorCode, SkillgateError } from "../core/errors.js";

/** The codes a store operation refuses with; each is documented in docs/store.md. */
export type StoreErrorCode = Extract<
  ErrorCode,
  | "too_many_skills"
  | "too_many_files"
  | "file_too_large"
  | "skill_too_large"
  | "zip_too_large"
  | "too_many_domains"
  | "skill_changed"
  | "unknown_hash"
  | "skill_exists"
  | "builtin_read_only"
  | "invalid_skill_name"
  | "invalid_argument"
  | "path_not_allowed"
  | "symlink_not_allowed"
  | "not_found"
  | "skill_invalid"
  | "store_corrupt"
  | "store_busy"
  | "script_check_failed"
  | "too_many_source_chats"
  | "rationale_too_long"
  | "draft_locked"
  | "invalid_draft_arguments"
  | "invalid_edit_arguments"
  | "plan_not_found"
  | "plan_expired"
  | "too_many_plans"
>;

/**
 * The HTTP status a server answers with for each store refusal: 413 when a limit is
 * exceeded (sizes and counts alike), 409 when the store's state conflicts with the request,
 * 404 for a missing skill, 403 for a write to a built-in, 400 for malformed input, 500 for a
 * store that cannot be trusted and 503 when the store stayed locked too long. A script that
 * does not parse is 422 (the request was well formed, its content is not); an expired edit
 * plan is 410, and a full plan list 429 (try again once plans are approved, rejected or expire).
 */
export const STORE_HTTP_STATUS: Readonly<Record<StoreErrorCode, number>> = Object.freeze({
  too_many_skills: 413,
  too_many_files: 413,
  file_too_large: 413,
  skill_too_large: 413,
  zip_too_large: 413,
  too_many_domains: 413,
  skill_changed: 409,
  unknown_hash: 409,
  skill_exists: 409,
  builtin_read_only: 403,
  invalid_skill_name: 400,
  invalid_argument: 400,
  path_not_allowed: 400,
  symlink_not_allowed: 400,
  not_found: 404,
  skill_invalid: 400,
  store_corrupt: 500,
  store_busy: 503,
  script_check_failed: 422,
  too_many_source_chats: 413,
  rationale_too_long: 413,
  draft_locked: 409,
  invalid_draft_arguments: 400,
  invalid_edit_arguments: 400,
  plan_not_found: 404,
  plan_expired: 410,
  too_many_plans: 429,
});

/**
 * The base of every store refusal. `code` is stable, `httpStatus` is what a server answers
 * with, `data` holds the details. Nothing in the store changed when one of these is thrown.
 */
export class StoreError<Data extends object = Record<string, unknown>> extends SkillgateError<Data> {
  /** The HTTP status for this refusal, from {@link STORE_HTTP_STATUS}. */
  readonly httpStatus: number;
  declare readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, data: Data, options?: { cause?: unknown }) {
    super(code, message, data, options);
    this.httpStatus = STORE_HTTP_STATUS[code];
  }
}

/** True when `error` is a store refusal, optionally with the given code. */
export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}

/** The store already holds {@link MAX_SKILLS} skills. */
export class TooManySkillsError extends StoreError<{ count: number; limit: number }> {
  constructor(count: number, limit: number) {
    super("too_many_skills", `the store holds ${count} skills; the limit is ${limit}`, { count, limit });
  }
}

/** A skill would hold more files (or folders) than allowed. */
export class TooManyFilesError extends StoreError<{ count: number; limit: number }> {
  constructor(count: number, limit: number, what = "files") {
    super("too_many_files", `the skill would hold more than ${limit} ${what} (counted ${count})`, {
      count,
      limit,
    });
  }
}

/** One file is larger than the limit that applies to it (1 MiB, or 256 KiB for edited text). */
export class SkillFileTooLargeError extends StoreError<{ path: string; size: number; limit: number }> {
  constructor(path: string, size: number, limit: number) {
    super("file_too_large", `${path} is ${size} bytes; the limit is ${limit}`, { path, size, limit });
  }
}

/** All files of a skill together are larger than {@link MAX_SKILL_BYTES}. */
export class SkillTooLargeError extends StoreError<{ size: number; limit: number }> {
  constructor(size: number, limit: number) {
    super("skill_too_large", `the skill would hold more than ${limit} bytes (counted ${size})`, {
      size,
      limit,
    });
  }
}

/** A skill lists more allowed domains than {@link MAX_DOMAINS}. */
export class TooManyDomainsError extends StoreError<{ count: number; limit: number }> {
  constructor(count: number, limit: number) {
    super("too_many_domains", `skillgate.allowed-domains lists ${count} hosts; the limit is ${limit}`, {
      count,
      limit,
    });
  }
}

/**
 * Which hash the caller saw, when it is one the skill had: `recorded`, the hash the index
 * holds (the files changed on disk since), or `earlier`, a version before a later write.
 */
export type SeenHash = "recorded" | "earlier";

/** The skill's current content hash is not the one the caller saw: 409 (docs/store.md, "Limits"). */
export class SkillChangedError extends StoreError<{
  name: string;
  expected: string;
  actual: string;
  seen?: SeenHash;
}> {
  constructor(name: string, expected: string, actual: string, seen?: SeenHash) {
    const what =
      seen === "earlier"
        ? `the reviewed ${expected.slice(0, 8)} is an earlier version; it has been written since and is now ${actual.slice(0, 8)}`
        : seen === "recorded"
          ? `its files changed on disk since ${expected.slice(0, 8)} was recorded; they now hash to ${actual.slice(0, 8)}`
          : `its hash is ${actual.slice(0, 8)}, not the reviewed ${expected.slice(0, 8)}`;
    super(
      "skill_changed",
      `skill "${name}" changed: ${what}; review it again (skillgate store show ${name})`,
      {
        name,
        expected,
        actual,
        ...(seen !== undefined ? { seen } : {}),
      },
    );
  }
}

/**
 * The hash given to enable a skill was never this skill's (most likely mistyped or copied from
 * another skill): nothing changed, the skill was simply not the one reviewed.
 */
export class UnknownHashError extends StoreError<{ name: string; given: string; actual: string }> {
  constructor(name: string, given: string, actual: string) {
    super(
      "unknown_hash",
      `the hash ${given.slice(0, 8)}… is not one skill "${name}" has ever had (it is ${actual.slice(0, 8)} now); copy the full hash from skillgate store show ${name}`,
      { name, given, actual },
    );
  }
}

/** A skill (or an unindexed folder) of that name already exists. */
export class SkillExistsError extends StoreError<{ name: string }> {
  constructor(name: string, detail = "") {
    super("skill_exists", `a skill named "${name}" already exists${detail}`, { name });
  }
}

/** Built-in skills ship with the package and cannot be written, enabled, disabled or deleted. */
export class BuiltinReadOnlyError extends StoreError<{ name: string }> {
  constructor(name: string) {
    super("builtin_read_only", `"${name}" is a built-in skill and is read-only; duplicate it to change it`, {
      name,
    });
  }
}

/** A skill name that breaks the Agent Skills rule (1-64 of a-z, 0-9 and single inner hyphens). */
export class InvalidSkillNameError extends StoreError<{ name: string }> {
  constructor(name: string) {
    super(
      "invalid_skill_name",
      `${JSON.stringify(name)} is not a valid skill name: use 1 to 64 characters of a-z, 0-9 and single hyphens, not at the start or end`,
      { name },
    );
  }
}

/** A malformed option or argument given to a store operation. */
export class StoreArgumentError extends StoreError<{ argument: string }> {
  constructor(argument: string, message: string) {
    super("invalid_argument", message, { argument });
  }
}

/** A relative path inside a skill that is not allowed, with the reason. */
export class SkillPathNotAllowedError extends StoreError<{ path: string; reason: string }> {
  constructor(path: string, reason: string) {
    super("path_not_allowed", `${JSON.stringify(path)} is not allowed: ${reason}`, { path, reason });
  }
}

/** A folder handed to the store holds a symbolic link, a device or another non-regular entry. */
export class SkillSymlinkError extends StoreError<{ path: string }> {
  constructor(path: string) {
    super("symlink_not_allowed", `${path} is not a regular file or folder; skills hold only those`, { path });
  }
}

/** No skill (or no file in a skill) of that name. */
export class SkillNotFoundError extends StoreError<{ kind: string; name: string }> {
  constructor(kind: "skill" | "file", name: string) {
    super("not_found", `no ${kind} named "${name}"`, { kind, name });
  }
}

/** The skill's SKILL.md does not load, or its governance keys or parameters_schema are invalid. */
export class SkillInvalidError extends StoreError<{ name: string; diagnostics: Diagnostic[] }> {
  constructor(name: string, diagnostics: Diagnostic[]) {
    const first = diagnostics[0]?.message ?? "the skill is invalid";
    const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more problems)` : "";
    super("skill_invalid", `skill "${name}" is invalid: ${first}${more}`, { name, diagnostics });
  }
}

/** index.json (or the journal) cannot be read as the store wrote it: a person must look. */
export class StoreCorruptError extends StoreError<{ file: string; problem: string }> {
  constructor(file: string, problem: string) {
    super("store_corrupt", `${file} is not a valid store file: ${problem}`, { file, problem });
  }
}

/** Another process held the store's lock for longer than the wait allowed. */
export class StoreBusyError extends StoreError<{ folder: string; waitedMs: number }> {
  constructor(folder: string, waitedMs: number, options?: { cause?: unknown }) {
    super(
      "store_busy",
      `the store at ${folder} stayed locked for ${waitedMs} ms`,
      { folder, waitedMs },
      options,
    );
  }
}

/** One script problem carried by {@link ScriptCheckFailedError}: where it is and what the checker said. */
export interface ScriptCheckProblem {
  /** The script's path inside the skill. */
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** A script of the new version does not parse: the save is refused (docs/store.md, "The script check"). */
export class ScriptCheckFailedError extends StoreError<{ name: string; problems: ScriptCheckProblem[] }> {
  constructor(name: string, problems: ScriptCheckProblem[]) {
    const first = problems[0];
    const where =
      first === undefined
        ? "a script"
        : `${first.file}${first.line !== undefined ? ` line ${first.line}` : ""}`;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : "";
    super(
      "script_check_failed",
      `skill "${name}" has a script that does not parse: ${where}: ${first?.message ?? "syntax error"}${more}`,
      { name, problems },
    );
  }
}

/** Why the assistant may not write a skill (see {@link DraftLockedError}). */
export type DraftLockReason =
  /** A built-in skill. */
  | "builtin"
  /** A skill the assistant did not draft (the owner's, or an import). */
  | "not_a_draft"
  /** The owner enabled it or wrote to it once: locked for good. */
  | "locked"
  /** It is enabled. */
  | "enabled"
  /** Its files changed outside the store (its hash is not the recorded one). */
  | "edited_by_hand"
  /** Its SKILL.md carries `skillgate.last-edit`: the owner edited it. */
  | "owner_edited";

const LOCK_REASONS: Readonly<Record<DraftLockReason, string>> = {
  builtin: "it is a built-in skill",
  not_a_draft: "it is not an assistant's draft",
  locked: "the owner has enabled or edited it",
  enabled: "it is enabled",
  edited_by_hand: "its files were changed outside the store",
  owner_edited: "the owner has edited it",
};

/**
 * The assistant may rewrite only its own untouched draft (docs/drafts-and-edits.md, "The lock
 * on reviewed skills"): this skill is not one, or is locked for good.
 */
export class DraftLockedError extends StoreError<{ name: string; reason: DraftLockReason }> {
  constructor(name: string, reason: DraftLockReason) {
    super(
      "draft_locked",
      `skill "${name}" cannot be rewritten as a draft: ${LOCK_REASONS[reason]}; propose an edit instead`,
      { name, reason },
    );
  }
}
