import { isAbsolute, relative, resolve, sep } from "node:path";
import { isValidSkillName } from "../skill/fields.js";
import { InvalidSkillNameError, SkillPathNotAllowedError } from "./errors.js";
import { MAX_PATH_BYTES, MAX_PATH_SEGMENT_BYTES } from "./limits.js";

/**
 * Names and relative paths as the store accepts them. A path inside a skill is accepted
 * only in one canonical spelling, so two spellings can never name the same file and no
 * spelling can leave the skill folder on any platform the store's folders may be copied to.
 */

/** Refuses a skill name that breaks the Agent Skills rule; returns it unchanged otherwise. */
export function checkSkillName(name: unknown): string {
  if (typeof name !== "string" || !isValidSkillName(name)) throw new InvalidSkillNameError(String(name));
  return name;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a path are refused.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Refuses a relative path inside a skill unless it is canonical: `/`-separated, not
 * absolute, no backslash, no NUL or control character, no `:` (drive letters, alternate
 * streams), no empty, `.` or `..` segment, no hidden segment (a name starting with `.`,
 * which a reviewer would not see in most listings), no segment ending in a dot or space
 * (Windows drops those, so `a.` would be `a`), Unicode in NFC, and within the length limits.
 * Returns the path unchanged.
 */
export function checkRelativePath(path: unknown): string {
  if (typeof path !== "string") throw new SkillPathNotAllowedError(String(path), "a path must be text");
  const refuse = (reason: string): never => {
    throw new SkillPathNotAllowedError(path, reason);
  };
  if (path === "") refuse("the path is empty");
  if (Buffer.byteLength(path, "utf8") > MAX_PATH_BYTES)
    refuse(`the path is longer than ${MAX_PATH_BYTES} bytes`);
  if (CONTROL.test(path)) refuse("the path holds a NUL or control character");
  if (path.includes("\\")) refuse("the path holds a backslash; use /");
  if (path.startsWith("/") || isAbsolute(path)) refuse("the path is absolute");
  if (path.includes(":")) refuse("the path holds a colon");
  if (path.normalize("NFC") !== path) refuse("the path is not in Unicode NFC form");
  for (const segment of path.split("/")) {
    if (segment === "") refuse("the path has an empty segment (a leading, trailing or double /)");
    if (segment === "." || segment === "..") refuse(`the path has a "${segment}" segment`);
    if (segment.startsWith(".")) refuse(`"${segment}" is a hidden name`);
    if (segment.endsWith(" ") || segment.endsWith(".")) refuse(`"${segment}" ends with a space or a dot`);
    if (Buffer.byteLength(segment, "utf8") > MAX_PATH_SEGMENT_BYTES)
      refuse(`"${segment.slice(0, 32)}…" is longer than ${MAX_PATH_SEGMENT_BYTES} bytes`);
  }
  return path;
}

/**
 * The absolute path of `relativePath` inside `root`, after {@link checkRelativePath}. The
 * result is checked once more to be strictly inside `root` (`path_not_allowed` otherwise).
 */
export function resolveInside(root: string, relativePath: string): string {
  checkRelativePath(relativePath);
  const absolute = resolve(root, relativePath);
  const back = relative(root, absolute);
  if (back === "" || back.startsWith("..") || isAbsolute(back) || !absolute.startsWith(root + sep)) {
    throw new SkillPathNotAllowedError(relativePath, "the path resolves outside the skill folder");
  }
  return absolute;
}

/**
 * Refuses a set of paths that would collide in a folder: the same path twice when compared
 * without case (case-insensitive file systems would merge them), or a path that is both a
 * file and the folder of another path.
 */
export function checkPathSet(paths: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const path of paths) {
    const key = path.toLowerCase();
    const previous = seen.get(key);
    if (previous !== undefined)
      throw new SkillPathNotAllowedError(path, `it collides with "${previous}" (names differ only in case)`);
    seen.set(key, path);
  }
  for (const path of paths) {
    const segments = path.toLowerCase().split("/");
    for (let length = 1; length < segments.length; length += 1) {
      const folder = seen.get(segments.slice(0, length).join("/"));
      if (folder !== undefined)
        throw new SkillPathNotAllowedError(path, `"${folder}" is a file, so it cannot also be a folder`);
    }
  }
}
