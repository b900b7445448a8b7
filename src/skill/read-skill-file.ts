import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_SKILL_FILE_BYTES } from "../core/limits.js";
import { locateFrontMatter } from "./front-matter.js";

/** The file that makes a folder a skill. */
export const SKILL_FILE = "SKILL.md";

/** A SKILL.md read as text, or the reason it could not be. */
export type SkillFileText =
  | { readonly ok: true; readonly text: string; readonly stats: Stats }
  | { readonly ok: false; readonly diagnostic: Diagnostic };

/**
 * A file's identity and version for caches: inode, size, modification and change times.
 * Any write (in place or by rename) changes it.
 */
export function fileSignature(stats: {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/**
 * What discovery needs of a SKILL.md: when the file starts with a `---` line (after an
 * optional BOM) and its closing `---` line comes before any carriage return, `yaml` is
 * the text between them and the body is never decoded; otherwise `text` is the whole
 * file, for `splitFrontMatter` to cut as usual.
 */
export type SkillFileContent =
  | { readonly yaml: string; readonly text: undefined }
  | { readonly yaml: undefined; readonly text: string };

/** A SKILL.md read for discovery, with its stats, or the reason it could not be. */
export type SkillFileHead =
  | (SkillFileContent & { readonly ok: true; readonly stats: Stats })
  | { readonly ok: false; readonly diagnostic: Diagnostic };

/**
 * Reads a SKILL.md safely: never through a symlink (`O_NOFOLLOW`), only a regular file,
 * at most {@link MAX_SKILL_FILE_BYTES}, valid UTF-8 with no NUL byte. Never throws.
 */
export function readSkillFileText(path: string): SkillFileText {
  const read = readCheckedBytes(path);
  if (!read.ok) return read;
  return { ok: true, text: read.bytes.toString("utf8"), stats: read.stats };
}

/**
 * Reads a SKILL.md with the checks of {@link readSkillFileText} (the whole file is still
 * checked for NUL bytes and UTF-8), but decodes only its front matter when it can be cut
 * out of the bytes. `openPath` is the same file by another path (its real path, which
 * the system resolves faster); messages name `path`. Never throws.
 */
export function readSkillFileHead(path: string, openPath = path): SkillFileHead {
  const read = readCheckedBytes(path, openPath);
  if (!read.ok) return read;
  const { bytes, stats } = read;
  const range = locateFrontMatter(bytes);
  if (range === undefined) return { ok: true, yaml: undefined, text: bytes.toString("utf8"), stats };
  return { ok: true, yaml: bytes.toString("utf8", range.start, range.end), text: undefined, stats };
}

/**
 * One buffer reused for every read: a file is decoded (copied into a string) before the
 * next read starts, and reads are synchronous, so no caller ever sees it change. Files
 * larger than it get a buffer of their own, so a rare large file does not pin memory.
 */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Buffer | undefined;

/** The bytes of a checked SKILL.md (opened at `openPath`, named `path`): a view valid only until the next read. */
function readCheckedBytes(
  path: string,
  openPath = path,
): { ok: true; bytes: Buffer; stats: Stats } | { ok: false; diagnostic: Diagnostic } {
  let descriptor: number;
  try {
    descriptor = openSync(openPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, diagnostic: openProblem(path, error) };
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) {
      return {
        ok: false,
        diagnostic: diagnostic("unreadable_file", "error", `${path} is not a regular file`, { path }),
      };
    }
    if (stats.size > MAX_SKILL_FILE_BYTES) {
      return {
        ok: false,
        diagnostic: diagnostic(
          "file_too_large",
          "error",
          `${path} is ${stats.size} bytes; the limit is ${MAX_SKILL_FILE_BYTES}`,
          {
            path,
            hint: "move long material into references/ files that the skill points to",
          },
        ),
      };
    }
    scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
    const buffer = stats.size <= scratch.length ? scratch : Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < stats.size) {
      const count = readSync(descriptor, buffer, filled, stats.size - filled, filled);
      if (count === 0) break;
      filled += count;
    }
    const bytes = buffer.subarray(0, filled);
    const problem = contentProblem(bytes, path);
    return problem === undefined ? { ok: true, bytes, stats } : { ok: false, diagnostic: problem };
  } catch (error) {
    return { ok: false, diagnostic: openProblem(path, error) };
  } finally {
    closeSync(descriptor);
  }
}

function contentProblem(bytes: Buffer, path: string): Diagnostic | undefined {
  if (bytes.indexOf(0) !== -1) {
    return diagnostic("binary_content", "error", `${path} holds binary data, not text`, { path });
  }
  if (isUtf8(bytes)) return undefined;
  return diagnostic("binary_content", "error", `${path} is not valid UTF-8 text`, { path });
}

function openProblem(path: string, error: unknown): Diagnostic {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ELOOP") {
    return diagnostic(
      "symlink_not_allowed",
      "error",
      `${path} is a symbolic link; a SKILL.md must be a regular file`,
      {
        path,
        hint: "replace the link with the file itself",
      },
    );
  }
  if (code === "ENOENT") return diagnostic("missing_skill_file", "error", `${path} does not exist`, { path });
  return diagnostic("unreadable_file", "error", `${path} cannot be read (${code ?? String(error)})`, {
    path,
  });
}
