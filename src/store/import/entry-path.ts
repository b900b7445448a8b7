import { ImportRefusedError } from "./import-errors.js";
import { MAX_IMPORT_DEPTH, MAX_IMPORT_NAME_BYTES, MAX_IMPORT_PATH_BYTES } from "./limits.js";

/** A path inside a skill as an importer will write it: `/`-separated, relative, normalised. */
export interface EntryPath {
  /** The normalised path (`a//b/./c` becomes `a/b/c`); empty for the root folder itself. */
  readonly path: string;
  /** True when the name ended with `/` (a zip folder entry). */
  readonly isFolder: boolean;
}

/**
 * Normalises a path named by an archive or an API and refuses every form that could land
 * outside the target: absolute paths, drive letters, backslashes (a separator on Windows),
 * `..` segments, control characters, and names longer or deeper than a skill needs.
 * Empty and `.` segments are dropped, so `a//b` and `./a/b` both become `a/b` and are
 * caught as duplicates of each other later.
 *
 * @throws ImportRefusedError `path_not_allowed`
 */
export function normaliseEntryPath(raw: string): EntryPath {
  const refuse = (why: string): never => {
    throw new ImportRefusedError("path_not_allowed", `entry "${printable(raw)}" is not allowed: ${why}`, {
      path: printable(raw),
    });
  };
  if (raw.length === 0) refuse("the name is empty");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[\u0000-\u001f\u007f]/.test(raw)) refuse("the name holds a control character");
  if (raw.includes("\\")) refuse("backslashes are not path separators here");
  if (raw.startsWith("/")) refuse("the path is absolute");
  if (/^[A-Za-z]:/.test(raw)) refuse("the path starts with a drive letter");
  if (Buffer.byteLength(raw) > MAX_IMPORT_PATH_BYTES)
    refuse(`the path is longer than ${MAX_IMPORT_PATH_BYTES} bytes`);
  const segments = raw.split("/").filter((segment) => segment !== "" && segment !== ".");
  for (const segment of segments) {
    if (segment === "..") refuse("it climbs out with ..");
    if (Buffer.byteLength(segment) > MAX_IMPORT_NAME_BYTES) {
      refuse(`a name is longer than ${MAX_IMPORT_NAME_BYTES} bytes`);
    }
  }
  if (segments.length > MAX_IMPORT_DEPTH) refuse(`it is nested deeper than ${MAX_IMPORT_DEPTH} folders`);
  const isFolder = raw.endsWith("/");
  if (segments.length === 0 && !isFolder) refuse("the name has no file name");
  return { path: segments.join("/"), isFolder };
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
  if (name === "" || name === "." || name === "..") refuse(`"${printable(name)}" is not a file name`);
  if (name.includes("/") || name.includes("\\")) refuse("a name may not hold a path separator");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[\u0000-\u001f\u007f]/.test(name)) refuse("the name holds a control character");
  if (Buffer.byteLength(name) > MAX_IMPORT_NAME_BYTES)
    refuse(`a name is longer than ${MAX_IMPORT_NAME_BYTES} bytes`);
}

/** The path with control characters escaped and clipped, safe to put in a message or a log line. */
export function printable(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters for display.
  const escaped = path.replace(/[\u0000-\u001f\u007f]/g, (character) => {
    return `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
  return escaped.length > 200 ? `${escaped.slice(0, 199)}…` : escaped;
}
