import { isUtf8 } from "node:buffer";
import { lstatSync } from "node:fs";
import { join } from "node:path";
import {
  ErrorCode,
  McpError,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { isSkillgateError } from "../../core/errors.js";
import { settledBefore } from "../../core/file-stamps.js";
import { sha256Hex } from "../../core/hashing.js";
import { parseRelativePath, type RelativePathRule } from "../../core/safe-paths.js";
import type { Skill } from "../../skill/skill.js";
import { listSkillFiles } from "../../skill/skill-files.js";
import { readOneFile } from "../../store/file-sets.js";
import { checkResourcePath } from "../../tools/skill-files.js";
import type { SkillView } from "../../tools/skill-view.js";
import { mediaTypeOf } from "./media-types.js";

/**
 * Refusals about a path's parts (empty, `.`, `..`; a leading empty part reads as "absolute")
 * rather than its characters.
 */
const SEGMENT_RULES: ReadonlySet<RelativePathRule> = new Set([
  "empty",
  "absolute",
  "empty_segment",
  "dot_segment",
  "parent_segment",
]);

/** The scheme of skill files served as MCP resources: `skill://NAME/PATH`. */
export const SKILL_URI_PREFIX = "skill://";

/** The JSON-RPC error code MCP gives a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

/** How many resources one `resources/list` page holds; the next page is asked for by cursor. */
export const RESOURCES_PAGE_SIZE = 500;

/** The URI of a skill's file; each path part is percent-encoded, the `/` between them kept. */
export function skillResourceUri(skill: string, path: string): string {
  return `${SKILL_URI_PREFIX}${encodeURIComponent(skill)}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * Reads a `skill://NAME/PATH` URI sent by a client. Each path part is decoded on its own and
 * refused when it is empty (an absolute path), `.` or `..` (also spelled `%2e%2e`), or
 * holds a `/` (`%2f`), a backslash, a NUL or control character or a drive letter
 * ({@link parseRelativePath}): nothing a client sends can name
 * a file outside the skill's folder. Throws an McpError whose `data.code` is
 * `path_not_allowed` (or `not_found` for a URI of another scheme).
 */
export function parseSkillResourceUri(uri: string): { skill: string; path: string } {
  if (!uri.startsWith(SKILL_URI_PREFIX))
    throw resourceError(
      "not_found",
      uri,
      `HOST: ${uri} is not a skill file; skill files are skill://NAME/PATH.`,
    );
  const rest = uri.slice(SKILL_URI_PREFIX.length);
  if (/[?#]/.test(rest))
    throw resourceError("path_not_allowed", uri, `HOST: ${uri}: a skill file URI has no query or fragment.`);
  const slash = rest.indexOf("/");
  if (slash <= 0)
    throw resourceError(
      "path_not_allowed",
      uri,
      `HOST: ${uri}: expected skill://NAME/PATH, such as skill://my-skill/SKILL.md.`,
    );
  const skill = decodePart(rest.slice(0, slash), uri);
  const parts = rest
    .slice(slash + 1)
    .split("/")
    .map((part) => decodePart(part, uri));
  // Each part was decoded on its own, so a "/" inside one came from "%2f": never a separator.
  const encodedSlash = parts.some((part) => part.includes("/"));
  const checked = encodedSlash ? undefined : parseRelativePath(parts.join("/"));
  if (checked?.ok !== true) {
    const segmentRule = checked !== undefined && SEGMENT_RULES.has(checked.problem.rule);
    throw resourceError(
      "path_not_allowed",
      uri,
      segmentRule
        ? `HOST: ${uri}: a skill file path is relative to the skill folder and may not hold "..", "." or empty parts.`
        : `HOST: ${uri}: a skill file path may not hold an encoded "/", a backslash, a NUL or a drive letter.`,
    );
  }
  return { skill, path: parts.join("/") };
}

/** What a listed file looked like when its digest was taken. */
interface Digested {
  readonly stamp: string;
  readonly settled: boolean;
  readonly sha256: string | undefined;
  readonly isText: boolean;
  readonly size: number;
}

/**
 * The files of the skills a turn offers, as MCP resources. Listing gives each file its media
 * type, size and SHA-256 (in `_meta.sha256`); a digest is kept while the file's stamp
 * (inode, size, times) stays the same, so a repeat listing reads only what changed. Reading
 * always reads the file again and gives the digest of exactly the bytes returned.
 */
export class SkillResources {
  readonly #view: SkillView;
  readonly #digests = new Map<string, Digested>();

  constructor(view: SkillView) {
    this.#view = view;
  }

  /** One page of the offered skills' files, sorted by skill then path; `cursor` is the previous page's `nextCursor`. */
  async list(cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(start) || start < 0)
      throw new McpError(
        ErrorCode.InvalidParams,
        `HOST: ${JSON.stringify(cursor)} is not a cursor this server gave.`,
      );
    const all: Array<{ skill: Skill; folder: string; path: string }> = [];
    for (const skill of this.#view.offered()) {
      if (skill.directory === undefined) continue;
      for (const path of listSkillFiles(skill.directory)) all.push({ skill, folder: skill.directory, path });
    }
    // The first page sees every file: digests of files gone since are forgotten.
    if (start === 0) {
      const present = new Set(all.map(({ folder, path }) => join(folder, path)));
      for (const absolute of this.#digests.keys()) if (!present.has(absolute)) this.#digests.delete(absolute);
    }
    const page = all.slice(start, start + RESOURCES_PAGE_SIZE);
    const resources: Resource[] = [];
    for (const { skill, folder, path } of page) resources.push(await this.#describe(skill, folder, path));
    const next = start + RESOURCES_PAGE_SIZE;
    return next < all.length ? { resources, nextCursor: String(next) } : { resources };
  }

  /** Reads one file: text when it is UTF-8 without NUL bytes, else base64; refuses what is not an offered skill's listed file. */
  async read(uri: string): Promise<ReadResourceResult> {
    const { skill: name, path } = parseSkillResourceUri(uri);
    const { skill } = this.#view.lookup(name);
    if (skill?.directory === undefined)
      throw resourceError(
        "not_found",
        uri,
        `HOST: ${uri}: no skill named ${JSON.stringify(name)} is offered here.`,
      );
    const listed = listSkillFiles(skill.directory);
    const checked = checkResourcePath(path, listed);
    if (!checked.ok) throw resourceError("not_found", uri, checked.message);
    let bytes: Uint8Array;
    try {
      bytes = await readOneFile(skill.directory, checked.path);
    } catch (error) {
      if (isSkillgateError(error)) throw resourceError(error.code, uri, `HOST: ${uri}: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      throw resourceError(
        code === "ENOENT" ? "not_found" : "io_error",
        uri,
        `HOST: ${uri} cannot be read (${code}).`,
      );
    }
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const isText = isTextContent(buffer);
    const mimeType = mediaTypeOf(checked.path, isText);
    const _meta = { sha256: sha256Hex(buffer), size: buffer.length };
    return {
      contents: [
        isText
          ? { uri, mimeType, text: buffer.toString("utf8"), _meta }
          : { uri, mimeType, blob: buffer.toString("base64"), _meta },
      ],
    };
  }

  async #describe(skill: Skill, folder: string, path: string): Promise<Resource> {
    const digested = await this.#digest(join(folder, path), folder, path);
    return {
      uri: skillResourceUri(skill.name, path),
      name: `${skill.name}/${path}`,
      ...(path === "SKILL.md" ? { description: skill.description } : {}),
      mimeType: mediaTypeOf(path, digested.isText),
      size: digested.size,
      // A file too large to serve (or gone since the listing) is listed without a digest.
      ...(digested.sha256 !== undefined ? { _meta: { sha256: digested.sha256 } } : {}),
    };
  }

  async #digest(absolute: string, folder: string, path: string): Promise<Digested> {
    const now = Date.now();
    let stamp: string;
    let settled: boolean;
    let size: number;
    try {
      const stats = lstatSync(absolute);
      stamp = `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
      settled = settledBefore(stats, now);
      size = stats.size;
    } catch {
      return { stamp: "", settled: false, sha256: undefined, isText: false, size: 0 };
    }
    const cached = this.#digests.get(absolute);
    if (cached?.settled && cached.stamp === stamp) return cached;
    const digested = await digestFile(folder, path, stamp, settled, size);
    this.#digests.set(absolute, digested);
    return digested;
  }
}

/** The digest of one file, read through the store's safe reader (no links, regular files only, at most 1 MiB). */
async function digestFile(
  folder: string,
  path: string,
  stamp: string,
  settled: boolean,
  size: number,
): Promise<Digested> {
  let bytes: Buffer;
  try {
    const read = await readOneFile(folder, path);
    bytes = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
  } catch {
    return { stamp, settled: false, sha256: undefined, isText: false, size };
  }
  return { stamp, settled, sha256: sha256Hex(bytes), isText: isTextContent(bytes), size: bytes.length };
}

function isTextContent(bytes: Buffer): boolean {
  return !bytes.includes(0) && isUtf8(bytes);
}

function decodePart(part: string, uri: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw resourceError("path_not_allowed", uri, `HOST: ${uri} is not valid percent-encoding.`);
  }
}

/** A refusal of a resource request: a JSON-RPC error carrying skillgate's stable code in `data.code`. */
export function resourceError(code: string, uri: string, message: string): McpError {
  const rpcCode = code === "not_found" ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams;
  return new McpError(rpcCode, message, { code, uri });
}
