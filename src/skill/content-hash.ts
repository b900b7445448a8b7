import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
} from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_HASHED_FILES } from "../core/limits.js";

/** One entry of a skill folder as hashed: a regular file, or a link recorded by its target text. */
export interface HashedEntry {
  /** Path relative to the skill folder, with `/` separators. */
  readonly path: string;
  readonly kind: "file" | "symlink" | "other";
  readonly size: number;
}

/** A skill's content hash and the entries it covers. */
export interface ContentHash {
  /** Lower-case hex SHA-256; `undefined` when the folder could not be hashed at all. */
  readonly hash: string | undefined;
  readonly entries: readonly HashedEntry[];
  /** Symlinks, devices and unreadable entries found: each is a problem with a code. */
  readonly diagnostics: Diagnostic[];
}

/**
 * The content hash of a skill folder: SHA-256 over every entry below it, in ascending
 * order of relative path compared as UTF-8 bytes. Each regular file contributes
 * `F\0<path>\0<byte length>\0<bytes>`; a symbolic link contributes `L\0<path>\0<link text>\0`
 * and is never followed; anything else (a device, a socket, a FIFO) contributes
 * `O\0<path>\0`. Adding, removing, renaming or changing any file changes the hash.
 */
export function hashSkillFolder(directory: string): ContentHash {
  const diagnostics: Diagnostic[] = [];
  const entries: HashedEntry[] = [];
  try {
    collect(directory, "", entries, diagnostics);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    diagnostics.push(
      diagnostic("unreadable_file", "error", `cannot read ${directory} (${code})`, { path: directory }),
    );
    return { hash: undefined, entries: [], diagnostics };
  }
  if (entries.length > MAX_HASHED_FILES) {
    diagnostics.push(
      diagnostic("limit_exceeded", "error", `${directory} has more than ${MAX_HASHED_FILES} entries`, {
        path: directory,
      }),
    );
    return { hash: undefined, entries: [], diagnostics };
  }
  entries.sort((left, right) => Buffer.compare(Buffer.from(left.path), Buffer.from(right.path)));
  const hasher = createHash("sha256");
  for (const entry of entries) {
    const absolute = join(directory, entry.path);
    try {
      if (entry.kind === "file") {
        const bytes = readRegularFile(absolute);
        hasher.update(`F\0${entry.path}\0${bytes.length}\0`);
        hasher.update(bytes);
      } else if (entry.kind === "symlink") {
        hasher.update(`L\0${entry.path}\0${readlinkSync(absolute)}\0`);
      } else {
        hasher.update(`O\0${entry.path}\0`);
      }
    } catch (error) {
      // The folder changed while it was hashed (a file removed, or swapped for a link or
      // a pipe): no hash is better than a hash of something that was never there.
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      const kind = code === "ELOOP" ? "symlink_not_allowed" : "unreadable_file";
      diagnostics.push(
        diagnostic(kind, "error", `${entry.path} changed while it was hashed (${code})`, { path: absolute }),
      );
      return { hash: undefined, entries: [], diagnostics };
    }
  }
  return { hash: hasher.digest("hex"), entries, diagnostics };
}

/**
 * Reads a file listed as regular without following a link that took its place since
 * (`O_NOFOLLOW`) and without blocking on a pipe that did (`O_NONBLOCK` + a type check).
 */
function readRegularFile(path: string): Buffer {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile()) {
      throw Object.assign(new Error(`${path} is no longer a regular file`), { code: "ENOTREG" });
    }
    return readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function collect(directory: string, prefix: string, entries: HashedEntry[], diagnostics: Diagnostic[]): void {
  for (const entry of readdirSync(join(directory, prefix), { withFileTypes: true })) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entries.length > MAX_HASHED_FILES) return;
    if (entry.isDirectory()) {
      collect(directory, relative, entries, diagnostics);
    } else if (entry.isFile()) {
      entries.push({ path: relative, kind: "file", size: lstatSync(join(directory, relative)).size });
    } else if (entry.isSymbolicLink()) {
      entries.push({ path: relative, kind: "symlink", size: 0 });
      diagnostics.push(
        diagnostic(
          "symlink_not_allowed",
          "error",
          `${relative} is a symbolic link; skills may hold only regular files`,
          {
            path: join(directory, relative),
            hint: "replace the link with a copy of the file",
          },
        ),
      );
    } else {
      entries.push({ path: relative, kind: "other", size: 0 });
      diagnostics.push(
        diagnostic("unreadable_file", "error", `${relative} is not a regular file`, {
          path: join(directory, relative),
        }),
      );
    }
  }
}

/** The grant key for a skill at a given content hash: `skill:<name>@<first 8 hex>`. */
export function grant(name: string, hash: string): string {
  return `skill:${name}@${hash.slice(0, 8)}`;
}
