/**
 * The one check for a relative path that someone else named: a file inside a skill that a
 * model asks for, an archive entry, a path an edit writes, a script a runner is told to run.
 * Every caller applies the same base rules; the options exist only where callers genuinely
 * differ (archive entry names are normalised, the store also wants one canonical spelling).
 * See docs/architecture.md, "File safety".
 *
 * The error rule: a refused path is a {@link RelativePathProblem} value with a stable `rule`
 * and a `reason` to show, never a throw. Each caller turns it into its own refusal, all under
 * the code `path_not_allowed` (or a runner's `invalid_script`, or a `HOST:` text for a model).
 */

/** Why a path was refused; stable, so callers and tests can match on it. */
export type RelativePathRule =
  | "not_text"
  | "empty"
  | "too_long"
  | "control_character"
  | "backslash"
  | "absolute"
  | "drive_letter"
  | "colon"
  | "not_nfc"
  | "empty_segment"
  | "dot_segment"
  | "parent_segment"
  | "hidden_name"
  | "trailing_dot_or_space"
  | "name_too_long"
  | "too_deep"
  | "no_file_name";

/** A refused path: the rule it broke and a reason for people ("the path is absolute"). */
export interface RelativePathProblem {
  readonly rule: RelativePathRule;
  readonly reason: string;
}

/** Where callers differ. Every field is optional; the defaults are the strictest reading. */
export interface RelativePathOptions {
  /**
   * `"refuse"` (the default): `a//b`, `./a`, `a/.` and a trailing `/` are refused, so a path
   * has one spelling. `"drop"`: empty and `.` segments are dropped and a trailing `/` marks a
   * folder (archive entry names, where such spellings are common and harmless once dropped).
   */
  readonly dotAndEmptySegments?: "refuse" | "drop";
  /**
   * Also refuse spellings that are legal on Linux but ambiguous elsewhere or hidden from a
   * reviewer: any `:` (Windows drive letters and alternate streams), a hidden name (starting
   * with `.`), a name ending in a dot or a space (Windows drops those), Unicode not in NFC.
   * The managed store's rule, so two spellings never name one file.
   */
  readonly canonical?: boolean;
  /** The longest path, in UTF-8 bytes. */
  readonly maxBytes?: number;
  /** The longest single name, in UTF-8 bytes. */
  readonly maxNameBytes?: number;
  /** The most names a path may have (its depth). */
  readonly maxDepth?: number;
}

/** A path that passed: `/`-separated and relative, with its names. */
export interface SafeRelativePath {
  /** The path; with `"drop"`, normalised (`./a//b/` becomes `a/b`), else exactly what was given. */
  readonly path: string;
  /** Its names, never empty strings, `.` or `..`. */
  readonly segments: readonly string[];
  /** True when the path ended with `/` (only with `"drop"`; it is refused otherwise). */
  readonly isFolder: boolean;
}

/** The result of {@link parseRelativePath}. */
export type RelativePathResult =
  | { readonly ok: true; readonly value: SafeRelativePath }
  | { readonly ok: false; readonly problem: RelativePathProblem };

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a path are refused.
const CONTROL = /[\u0000-\u001f\u007f]/;
const DRIVE_LETTER = /^[A-Za-z]:/;

/**
 * Checks a relative path against the base rules, which always apply: it is text, not empty,
 * holds no NUL or other control character, no backslash (a separator on Windows), does not
 * start with `/` or a drive letter, and has no `..` name. Then the options' rules, in the
 * order listed on {@link RelativePathOptions}. Nothing here touches the file system: callers
 * that open the path still refuse links on the way (see docs/store.md).
 */
export function parseRelativePath(path: unknown, options: RelativePathOptions = {}): RelativePathResult {
  const problem = (rule: RelativePathRule, reason: string): RelativePathResult => ({
    ok: false,
    problem: { rule, reason },
  });
  if (typeof path !== "string") return problem("not_text", "a path must be text");
  if (path === "") return problem("empty", "the path is empty");
  if (options.maxBytes !== undefined && Buffer.byteLength(path, "utf8") > options.maxBytes)
    return problem("too_long", `the path is longer than ${options.maxBytes} bytes`);
  if (CONTROL.test(path)) return problem("control_character", "the path holds a NUL or control character");
  if (path.includes("\\")) return problem("backslash", "the path holds a backslash; use /");
  if (path.startsWith("/")) return problem("absolute", "the path is absolute");
  if (DRIVE_LETTER.test(path)) return problem("drive_letter", "the path starts with a drive letter");
  const canonical = options.canonical === true;
  if (canonical && path.includes(":")) return problem("colon", "the path holds a colon");
  if (canonical && path.normalize("NFC") !== path)
    return problem("not_nfc", "the path is not in Unicode NFC form");
  const drop = options.dotAndEmptySegments === "drop";
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") {
      if (drop) continue;
      return segment === ""
        ? problem("empty_segment", "the path has an empty segment (a leading, trailing or double /)")
        : problem("dot_segment", 'the path has a "." segment');
    }
    if (segment === "..") return problem("parent_segment", 'the path has a ".." segment');
    if (canonical && segment.startsWith(".")) return problem("hidden_name", `"${segment}" is a hidden name`);
    if (canonical && (segment.endsWith(" ") || segment.endsWith(".")))
      return problem("trailing_dot_or_space", `"${segment}" ends with a space or a dot`);
    if (options.maxNameBytes !== undefined && Buffer.byteLength(segment, "utf8") > options.maxNameBytes)
      return problem(
        "name_too_long",
        `"${segment.slice(0, 32)}…" is longer than ${options.maxNameBytes} bytes`,
      );
    segments.push(segment);
  }
  if (options.maxDepth !== undefined && segments.length > options.maxDepth)
    return problem("too_deep", `the path is nested deeper than ${options.maxDepth} folders`);
  const isFolder = drop && path.endsWith("/");
  if (segments.length === 0 && !isFolder) return problem("no_file_name", "the path has no file name");
  return { ok: true, value: { path: drop ? segments.join("/") : path, segments, isFolder } };
}
