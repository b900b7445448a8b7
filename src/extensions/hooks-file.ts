import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { isPlainObject, type JsonValue, parseJsonSafely } from "../core/safe-json.js";

/** The largest hooks file read: 1 MiB. A larger one is not loaded. */
export const MAX_HOOKS_FILE_BYTES = 1024 * 1024;

/** What reading a hooks file gave. */
export type HooksFileContent =
  /** Nothing at that path. */
  | { readonly kind: "missing" }
  /** The file exists but cannot be used; `reason` is shown in its note. */
  | { readonly kind: "unusable"; readonly reason: string }
  /** The native shape: a list of `{event, match?, command, timeout?}`. */
  | { readonly kind: "native"; readonly entries: readonly JsonValue[] }
  /** The agent settings shape: `{ EventName: [{ matcher?, hooks: [...] }] }`. */
  | { readonly kind: "settings"; readonly events: { readonly [event: string]: JsonValue } };

/**
 * Reads and parses a hooks file, never throwing. The file is the owner's, like the rest of
 * the configuration folder, so a symbolic link is followed; what it points to must be a
 * regular file of at most {@link MAX_HOOKS_FILE_BYTES}. The JSON is parsed without
 * prototype-polluting keys. A list is the native shape; an object is the settings shape,
 * either a whole settings file (its `hooks` object is used) or that `hooks` object alone.
 */
export async function readHooksFile(file: string): Promise<HooksFileContent> {
  let text: string;
  try {
    const read = await readCapped(file);
    if (typeof read !== "string") return read;
    text = read;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "unusable", reason: `cannot read it: ${code ?? String(error)}` };
  }
  let value: JsonValue;
  try {
    value = parseJsonSafely(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { kind: "unusable", reason: `invalid JSON: ${(error as Error).message}` };
  }
  if (Array.isArray(value)) return { kind: "native", entries: value };
  if (!isPlainObject(value)) {
    return { kind: "unusable", reason: "expected a list of hooks or a hooks settings object" };
  }
  if (!("hooks" in value)) return { kind: "settings", events: value };
  const hooks = value.hooks;
  if (!isPlainObject(hooks)) return { kind: "unusable", reason: "its hooks field is not an object" };
  return { kind: "settings", events: hooks };
}

async function readCapped(file: string): Promise<string | HooksFileContent> {
  // O_NONBLOCK: opening a FIFO planted at the path must not hang the load.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: "unusable", reason: "it is a folder" };
    if (!stats.isFile()) return { kind: "unusable", reason: "it is not a regular file" };
    if (stats.size > MAX_HOOKS_FILE_BYTES) {
      return { kind: "unusable", reason: `it is ${stats.size} bytes; the limit is ${MAX_HOOKS_FILE_BYTES}` };
    }
    // Read one byte past the cap, so a file that grew after the stat is still refused.
    const buffer = Buffer.alloc(MAX_HOOKS_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_HOOKS_FILE_BYTES) {
      return { kind: "unusable", reason: `it is over ${MAX_HOOKS_FILE_BYTES} bytes` };
    }
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    await handle.close();
  }
}
