import { constants } from "node:fs";
import { lstat, mkdir, open, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { writeFileAtomically } from "../../core/durable-fs.js";
import { parseRelativePath } from "../../core/safe-paths.js";
import { HostApiRefusal } from "./lua-errors.js";

/**
 * `ctx.fs.read` and `ctx.fs.write`: the only file access a Lua skill has. A path is relative
 * to the workspace, or absolute inside an effective root; it may not hold `..`, and no name
 * on the way may be a symbolic link (checked name by name from the root, and the file itself
 * is opened with `O_NOFOLLOW`). Reads and writes are bounded. Writes are atomic
 * (core's `writeFileAtomically`). Every path that was read or written is reported through
 * `touched` for the audit.
 *
 * Limit: the checks and the open are separate steps, so a process that swaps a folder for a
 * link in between could win a race; the roots are the owner's folders, not a hostile tree.
 */

/** The largest file `ctx.fs.read` returns and `ctx.fs.write` writes. */
export const MAX_LUA_FILE_BYTES = 1024 * 1024;

/** Where a call may read and write, already made absolute. */
export interface LuaFileRoots {
  /** The call's workspace (relative paths start here), if it has one. */
  readonly workspace?: string;
  /** Effective read roots: `workspace` or absolute folders. */
  readonly read: readonly string[];
  /** Effective write roots, likewise. */
  readonly write: readonly string[];
}

/** Reports a path the call read or wrote. */
export type TouchedReporter = (path: string, access: "read" | "write") => void;

async function canonicalRoots(names: readonly string[], workspace: string | undefined): Promise<string[]> {
  const roots: string[] = [];
  for (const name of names) {
    const folder = name === "workspace" ? workspace : isAbsolute(name) ? name : undefined;
    if (folder === undefined) continue;
    try {
      roots.push(await realpath(folder));
    } catch {
      // A root that does not exist allows nothing.
    }
  }
  return roots;
}

function inside(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === "" || (!rest.startsWith(`..${sep}`) && rest !== ".." && !isAbsolute(rest));
}

/** The root a requested path falls in and the path's names below it, or a refusal. */
async function locate(
  requested: unknown,
  access: "read" | "write",
  roots: LuaFileRoots,
): Promise<{ root: string; segments: string[] }> {
  if (typeof requested !== "string") throw new HostApiRefusal("path_not_allowed", "a path must be text");
  const allowed = await canonicalRoots(access === "read" ? roots.read : roots.write, roots.workspace);
  let absolute: string;
  if (isAbsolute(requested)) {
    const rest = requested.slice(1);
    const checked = parseRelativePath(rest);
    if (!checked.ok) throw new HostApiRefusal("path_not_allowed", `${requested}: ${checked.problem.reason}`);
    absolute = resolve("/", rest);
  } else {
    const checked = parseRelativePath(requested);
    if (!checked.ok) throw new HostApiRefusal("path_not_allowed", `${requested}: ${checked.problem.reason}`);
    if (roots.workspace === undefined)
      throw new HostApiRefusal("path_not_allowed", "this call has no workspace");
    absolute = join(await realpath(roots.workspace).catch(() => roots.workspace ?? "/"), checked.value.path);
  }
  const root = allowed.find((candidate) => inside(candidate, absolute));
  if (root === undefined)
    throw new HostApiRefusal("path_not_allowed", `${requested} is outside the skill's ${access} roots`);
  const segments = relative(root, absolute)
    .split(sep)
    .filter((name) => name !== "");
  if (segments.length === 0)
    throw new HostApiRefusal("path_not_allowed", `${requested} names a root, not a file`);
  return { root, segments };
}

/** Checks every existing name below the root; returns how many exist (the rest are missing). */
async function refuseLinks(root: string, segments: readonly string[], requested: string): Promise<number> {
  let current = root;
  for (const [position, name] of segments.entries()) {
    current = join(current, name);
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(current);
    } catch {
      return position;
    }
    if (stats.isSymbolicLink())
      throw new HostApiRefusal("symlink_not_allowed", `${requested}: ${name} is a symbolic link`);
    const last = position === segments.length - 1;
    if (!last && !stats.isDirectory())
      throw new HostApiRefusal("path_not_allowed", `${requested}: ${name} is not a folder`);
    if (last && !stats.isFile())
      throw new HostApiRefusal("path_not_allowed", `${requested} is not a regular file`);
  }
  return segments.length;
}

/** `ctx.fs.read(path)`: the file's text. */
export async function readSkillFile(
  requested: unknown,
  roots: LuaFileRoots,
  touched: TouchedReporter,
): Promise<string> {
  const { root, segments } = await locate(requested, "read", roots);
  const path = join(root, ...segments);
  const present = await refuseLinks(root, segments, String(requested));
  if (present < segments.length) throw new HostApiRefusal("not_found", `${String(requested)} does not exist`);
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => {
      throw new HostApiRefusal("io_error", `${String(requested)} cannot be opened`);
    },
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      throw new HostApiRefusal("path_not_allowed", `${String(requested)} is not a regular file`);
    if (stats.size > MAX_LUA_FILE_BYTES)
      throw new HostApiRefusal("file_too_large", `${String(requested)} is over ${MAX_LUA_FILE_BYTES} bytes`);
    const buffer = Buffer.alloc(MAX_LUA_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_LUA_FILE_BYTES)
        throw new HostApiRefusal(
          "file_too_large",
          `${String(requested)} is over ${MAX_LUA_FILE_BYTES} bytes`,
        );
    }
    touched(path, "read");
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** `ctx.fs.write(path, text)`: replaces or creates the file atomically, making missing folders. */
export async function writeSkillFile(
  requested: unknown,
  text: unknown,
  roots: LuaFileRoots,
  touched: TouchedReporter,
): Promise<void> {
  if (typeof text !== "string") throw new HostApiRefusal("lua_host_refused", "ctx.fs.write takes text");
  if (Buffer.byteLength(text, "utf8") > MAX_LUA_FILE_BYTES)
    throw new HostApiRefusal("file_too_large", `the text is over ${MAX_LUA_FILE_BYTES} bytes`);
  const { root, segments } = await locate(requested, "write", roots);
  const present = await refuseLinks(root, segments, String(requested));
  let folder = root;
  for (const [position, name] of segments.slice(0, -1).entries()) {
    folder = join(folder, name);
    if (position >= present) await mkdir(folder, { mode: 0o755 });
  }
  const path = join(root, ...segments);
  await writeFileAtomically(path, text);
  touched(path, "write");
}
