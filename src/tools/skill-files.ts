import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { parseRelativePath, type RelativePathRule } from "../core/safe-paths.js";
import { FILE_TEXTS } from "./call-texts.js";

/** The most of one resource file shown to a model: 64 KiB, then a note. */
export const MAX_RESOURCE_BYTES = 64 * 1024;

/** The refusals that are about a path's parts rather than its characters or its start. */
const SEGMENT_RULES: ReadonlySet<RelativePathRule> = new Set([
  "empty",
  "empty_segment",
  "dot_segment",
  "parent_segment",
]);

/**
 * A resource path a model sent, checked by {@link parseRelativePath} (relative, no `..`, no
 * backslash, no NUL or control character) and listed.
 */
export function checkResourcePath(
  path: unknown,
  listed: readonly string[],
): { ok: true; path: string } | { ok: false; message: string } {
  if (typeof path !== "string" || path.length === 0)
    return {
      ok: false,
      message: FILE_TEXTS.noPath,
    };
  // A leading "./" is a common spelling of the same file, so it is dropped before the check.
  const normalised = path.replace(/^\.\//, "");
  const checked = parseRelativePath(normalised);
  if (!checked.ok) {
    return SEGMENT_RULES.has(checked.problem.rule)
      ? { ok: false, message: FILE_TEXTS.badParts }
      : { ok: false, message: FILE_TEXTS.notRelative };
  }
  if (!listed.includes(normalised)) {
    return {
      ok: false,
      message: FILE_TEXTS.notListed(normalised, listed),
    };
  }
  return { ok: true, path: normalised };
}

/**
 * Reads a listed file for a model: never through a link, at most
 * {@link MAX_RESOURCE_BYTES} shown (with a note of how much more there is), text only.
 */
export function readResourceText(folder: string, path: string): string {
  let descriptor: number;
  try {
    descriptor = openSync(
      join(folder, path),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ELOOP" ? FILE_TEXTS.link(path) : FILE_TEXTS.unreadable(path, code);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return FILE_TEXTS.notRegular(path);
    const length = Math.min(stats.size, MAX_RESOURCE_BYTES);
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const count = readSync(descriptor, buffer, filled, length - filled, filled);
      if (count === 0) break;
      filled += count;
    }
    const bytes = buffer.subarray(0, filled);
    if (bytes.includes(0) || !isUtf8(trimPartialCharacter(bytes))) return FILE_TEXTS.binary(path, stats.size);
    const text = trimPartialCharacter(bytes).toString("utf8");
    return stats.size > length
      ? `${text}\n…[${stats.size - length} more bytes not shown; the file is ${stats.size} bytes]`
      : text;
  } finally {
    closeSync(descriptor);
  }
}

/** Drops an incomplete UTF-8 sequence at the end of a cut buffer. */
function trimPartialCharacter(bytes: Buffer): Buffer {
  let end = bytes.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back += 1;
  const lead = bytes[end - back - 1];
  if (lead === undefined) return bytes;
  const expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (expected > back + 1) end -= back + 1;
  return bytes.subarray(0, end);
}
