/**
 * Limits, as named constants. Each is documented in docs/limits.md; a change here is a
 * change of contract.
 */

/** The largest SKILL.md read, in bytes. Larger files are a `file_too_large` diagnostic. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
/** The largest front matter block, in bytes (UTF-8), before YAML parsing is attempted. */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;
/** Alias expansion bound for YAML: a document whose aliases expand past this is refused. */
export const MAX_YAML_ALIAS_COUNT = 100;
/** Skill name length in characters (Agent Skills specification). */
export const MAX_NAME_LENGTH = 64;
/** Description length in Unicode code points (Agent Skills specification). */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Compatibility field length in code points (Agent Skills specification). */
export const MAX_COMPATIBILITY_LENGTH = 500;
/** Hosts a skill may list in `skillgate.allowed-domains`. */
export const MAX_ALLOWED_DOMAINS = 50;
/**
 * Deepest nesting of objects and arrays in a declared `parameters_schema`. Real argument
 * schemas nest a few levels; far deeper ones only serve to exhaust the stack of a schema
 * compiler later.
 */
export const MAX_SCHEMA_DEPTH = 64;
/** Characters of a skill body sent to a model before it is clipped. */
export const MAX_SKILL_CHARS = 20_000;
/** Default length of a one-line description made from a body. */
export const DESCRIBE_MAX = 300;
/** Characters of a description shown per line of the skill index. */
export const SKILL_DESC_MAX = 250;
/** Default character budget of the skill index: about 1% of a 200k-token context (4 chars a token). */
export const DEFAULT_INDEX_BUDGET = 8_000;
/** Deepest folder level searched below a skills root (the root is depth 0). */
export const MAX_DISCOVERY_DEPTH = 6;
/** Folders visited below one skills root before discovery stops with `limit_exceeded`. */
export const MAX_DISCOVERY_FOLDERS = 50_000;
/** Skills taken from one skills root before the rest are `limit_exceeded`. */
export const MAX_SKILLS_PER_ROOT = 20_000;
/** Files counted into a skill's content hash; a skill with more is refused a hash. */
export const MAX_HASHED_FILES = 10_000;
