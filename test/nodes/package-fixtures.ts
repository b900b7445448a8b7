import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { Header, type HeaderData, Pax } from "tar";
import { hashSkillFolder } from "../../src/skill/content-hash.js";

/**
 * Helpers of the node package tests: skill folders written from a map of files, and tar
 * archives written header by header (with tar's own `Header`), so a test can make every
 * hostile entry a package could carry.
 */

/** Writes `files` (relative path → text) under `folder` and returns the folder's content hash. */
export function writeSkill(folder: string, files: Readonly<Record<string, string | Buffer>>): string {
  for (const [path, content] of Object.entries(files)) {
    const absolute = join(folder, path);
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
  const hash = hashSkillFolder(folder).hash;
  if (hash === undefined) throw new Error(`${folder} cannot be hashed`);
  return hash;
}

/** A minimal skill's files. */
export function skillFiles(
  name: string,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    "SKILL.md": `---\nname: ${name}\ndescription: ${name} for the node package tests\n---\nRun it.\n`,
    "scripts/run.py": `print("${name}")\n`,
    ...extra,
  };
}

/** One entry of a hand-made archive. */
export interface RawEntry {
  readonly path: string;
  readonly type?: HeaderData["type"];
  /** The bytes stored after the header (a file's content). */
  readonly data?: Buffer | string;
  /** The size the header declares (default: the data's length). */
  readonly size?: number;
  readonly linkpath?: string;
  readonly mode?: number;
  /** Put the path in a pax record before the header. */
  readonly pax?: boolean;
  /** A global pax header before this entry. */
  readonly globalPax?: boolean;
  /** Break the header's checksum. */
  readonly badChecksum?: boolean;
}

/** The tar bytes of `entries` (with the two end blocks unless `end: false`). */
export function rawTar(entries: readonly RawEntry[], options: { readonly end?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.data === undefined ? Buffer.alloc(0) : Buffer.from(entry.data);
    if (entry.globalPax) blocks.push(new Pax({ path: entry.path, comment: "x" }, true).encode());
    if (entry.pax) blocks.push(new Pax({ path: entry.path }).encode());
    const header = new Header({
      path: entry.pax ? "placeholder" : entry.path,
      type: entry.type ?? "File",
      size: entry.size ?? data.length,
      mode: entry.mode ?? 0o644,
      uid: 0,
      gid: 0,
      mtime: new Date(0),
      ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
    });
    header.encode();
    const block = header.block as Buffer;
    if (entry.badChecksum) block[0] = (block[0] ?? 0) ^ 0x01;
    blocks.push(block, data);
    const remainder = data.length % 512;
    if (remainder !== 0) blocks.push(Buffer.alloc(512 - remainder));
  }
  if (options.end !== false) blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/**
 * Overwrites a field of the header at `offset` with `text` and recomputes its checksum, so the
 * header is "valid" but says what a hostile archive wants (a size that is not a number).
 */
export function patchHeader(
  tar: Buffer,
  offset: number,
  field: { start: number; length: number },
  text: string,
): Buffer {
  const copy = Buffer.from(tar);
  copy.fill(0, offset + field.start, offset + field.start + field.length);
  copy.write(text, offset + field.start, field.length, "latin1");
  copy.fill(0x20, offset + 148, offset + 156);
  let sum = 0;
  for (let index = offset; index < offset + 512; index += 1) sum += copy[index] ?? 0;
  copy.write(`${sum.toString(8).padStart(6, "0")}\0 `, offset + 148, 8, "latin1");
  return copy;
}

/** `rawTar` gzipped. */
export function rawTarGz(entries: readonly RawEntry[], options: { readonly end?: boolean } = {}): Buffer {
  return gzipSync(rawTar(entries, options));
}

/** Every path below `folder` with its mode, sorted: what a test compares before and after. */
export function listTree(folder: string): string[] {
  const result: string[] = [];
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(folder, relative)).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const stats = statSync(join(folder, path));
      result.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
      if (stats.isDirectory()) walk(path);
    }
  };
  walk("");
  return result;
}
