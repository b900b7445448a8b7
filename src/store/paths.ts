import { isAbsolute, relative, resolve, sep } from "node:path";
import { parseRelativePath, type RelativePathOptions } from "../core/safe-paths.js";
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

/** The store's rules: the base rules, canonical spelling, and the store's length limits. */
const STORE_PATH_RULES: RelativePathOptions = {
  canonical: true,
  maxBytes: MAX_PATH_BYTES,
  maxNameBytes: MAX_PATH_SEGMENT_BYTES,
};

/**
 * Refuses a relative path inside a skill unless it is canonical: `/`-separated, not
 * absolute, no backslash, no NUL or control character, no `:` (drive letters, alternate
 * streams), no empty, `.` or `..` segment, no hidden segment (a name starting with `.`,
 * which a reviewer would not see in most listings), no segment ending in a dot or space
 * (Windows drops those, so `a.` would be `a`), Unicode in NFC, and within the length limits
 * ({@link parseRelativePath} with the canonical rules). Returns the path unchanged.
 *
 * @throws SkillPathNotAllowedError `path_not_allowed`
 */
export function checkRelativePath(path: unknown): string {
  const checked = parseRelativePath(path, STORE_PATH_RULES);
  if (!checked.ok) throw new SkillPathNotAllowedError(String(path), checked.problem.reason);
  return checked.value.path;
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
