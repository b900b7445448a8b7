import { parseRelativePath, type RelativePathOptions } from "../../core/safe-paths.js";
import { ImportRefusedError } from "./import-errors.js";
import { MAX_IMPORT_DEPTH, MAX_IMPORT_NAME_BYTES, MAX_IMPORT_PATH_BYTES } from "./limits.js";

/** A path inside a skill as an importer will write it: `/`-separated, relative, normalised. */
export interface EntryPath {
  /** The normalised path (`a//b/./c` becomes `a/b/c`); empty for the root folder itself. */
  readonly path: string;
  /** True when the name ended with `/` (a zip folder entry). */
  readonly isFolder: boolean;
}

/** Archive and API entry names: empty and `.` segments dropped, a trailing `/` names a folder. */
const ENTRY_PATH_RULES: RelativePathOptions = {
  dotAndEmptySegments: "drop",
  maxBytes: MAX_IMPORT_PATH_BYTES,
  maxNameBytes: MAX_IMPORT_NAME_BYTES,
  maxDepth: MAX_IMPORT_DEPTH,
};

/**
 * Normalises a path named by an archive or an API and refuses every form that could land
 * outside the target: absolute paths, drive letters, backslashes (a separator on Windows),
 * `..` segments, control characters, and names longer or deeper than a skill needs.
 * Empty and `.` segments are dropped, so `a//b` and `./a/b` both become `a/b` and are
 * caught as duplicates of each other later ({@link parseRelativePath} with the entry rules).
 *
 * @throws ImportRefusedError `path_not_allowed`
 */
export function normaliseEntryPath(raw: string): EntryPath {
  const checked = parseRelativePath(raw, ENTRY_PATH_RULES);
  if (!checked.ok)
    throw new ImportRefusedError(
      "path_not_allowed",
      `entry "${printable(raw)}" is not allowed: ${checked.problem.reason}`,
      {
        path: printable(raw),
      },
    );
  return { path: checked.value.path, isFolder: checked.value.isFolder };
}

/**
 * Checks one file or folder name (a single segment, as the GitHub API returns in `name`).
 *
 * @throws ImportRefusedError `path_not_allowed`
 */
export function checkEntryName(name: string, shownPath: string): void {
  const refuse = (why: string): never => {
    throw new ImportRefusedError(
      "path_not_allowed",
      `entry "${printable(shownPath)}" is not allowed: ${why}`,
      {
        path: printable(shownPath),
      },
    );
  };
  if (name.includes("/")) refuse("a name may not hold a path separator");
  const checked = parseRelativePath(name, ENTRY_PATH_RULES);
  const problem = checked.ok
    ? checked.value.path === name
      ? undefined
      : `"${printable(name)}" is not a file name`
    : checked.problem.reason;
  if (problem !== undefined) refuse(problem);
}

/** The path with control characters escaped and clipped, safe to put in a message or a log line. */
export function printable(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters for display.
  const escaped = path.replace(/[\u0000-\u001f\u007f]/g, (character) => {
    return `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
  return escaped.length > 200 ? `${escaped.slice(0, 199)}…` : escaped;
}
