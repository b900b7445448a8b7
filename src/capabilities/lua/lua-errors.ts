import { type ErrorCode, type LuaSkillErrorCode, SkillgateError } from "../../core/errors.js";

/**
 * The codes a Lua skill's call or load can end with (docs/capabilities.md, "Lua skills"):
 * its own (core's `LUA_SKILL_ERROR_CODES`, which the pipeline keeps at the caller), a
 * deadline, and the file refusals of its host API.
 */
export type LuaErrorCode =
  | LuaSkillErrorCode
  | Extract<
      ErrorCode,
      | "capability_timeout"
      | "path_not_allowed"
      | "symlink_not_allowed"
      | "file_too_large"
      | "not_found"
      | "io_error"
    >;

/**
 * A Lua skill's call or load that did not finish with a value. The message starts with
 * `HOST:` because it may be shown to a model; `code` is what callers and tests match on.
 */
export class LuaSkillError extends SkillgateError<{ skill: string; detail: string }> {
  /** A refusal a nested call met and the skill did not catch ends the call with that refusal's code. */
  constructor(code: LuaErrorCode | ErrorCode, skill: string, detail: string) {
    super(code, `HOST: ${skill}: ${detail} [${code}]`, { skill, detail });
  }
}

/**
 * A refusal of one host API request (a path outside the roots, a capability the manifest
 * does not list). Raised inside Lua as an error the skill may catch with `pcall`; it never
 * widens anything, so catching it is harmless.
 */
export class HostApiRefusal extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message.startsWith("HOST:") ? `${message} [${code}]` : `HOST: ${message} [${code}]`);
    this.code = code;
  }
}
