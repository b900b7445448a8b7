import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_SKILL_FILE_BYTES } from "../core/limits.js";

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
 * Reads a SKILL.md safely: never through a symlink (`O_NOFOLLOW`), only a regular file,
 * at most {@link MAX_SKILL_FILE_BYTES}, valid UTF-8 with no NUL byte. Never throws.
 */
export function readSkillFileText(path: string): SkillFileText {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
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
    const buffer = Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < stats.size) {
      const count = readSync(descriptor, buffer, filled, stats.size - filled, filled);
      if (count === 0) break;
      filled += count;
    }
    const decoded = decode(buffer.subarray(0, filled), path);
    return decoded.ok ? { ok: true, text: decoded.text, stats } : decoded;
  } catch (error) {
    return { ok: false, diagnostic: openProblem(path, error) };
  } finally {
    closeSync(descriptor);
  }
}

function decode(
  bytes: Buffer,
  path: string,
): { ok: true; text: string } | { ok: false; diagnostic: Diagnostic } {
  if (bytes.includes(0)) {
    return {
      ok: false,
      diagnostic: diagnostic("binary_content", "error", `${path} holds binary data, not text`, { path }),
    };
  }
  if (isUtf8(bytes)) return { ok: true, text: bytes.toString("utf8") };
  return {
    ok: false,
    diagnostic: diagnostic("binary_content", "error", `${path} is not valid UTF-8 text`, { path }),
  };
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
