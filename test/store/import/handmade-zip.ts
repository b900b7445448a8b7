import { deflateRawSync } from "node:zlib";
import { crc32 } from "../../../src/store/import/crc32.js";

/** One entry of a zip written byte by byte, with every field open to a lie. */
export interface HandmadeEntry {
  readonly name: string | Buffer;
  /** The uncompressed content; empty by default. */
  readonly data?: Buffer;
  /** Compression method: 8 (deflate) by default, 0 for stored, anything else as given. */
  readonly method?: number;
  /** General purpose bit flags; 0x800 (UTF-8 names) by default. */
  readonly flags?: number;
  /** "Version made by"; Unix (3) version 3.0 by default. */
  readonly versionMadeBy?: number;
  /** External attributes; a regular 0644 file (or a 0755 folder for names ending in `/`) by default. */
  readonly externalAttributes?: number;
  /** Lies about the uncompressed size in both headers. */
  readonly declaredSize?: number;
  /** Lies about the checksum. */
  readonly crc?: number;
  /** A different name in the local header than in the central directory. */
  readonly localName?: string | Buffer;
  /** Different general purpose flags in the local header (such as no UTF-8 bit). */
  readonly localFlags?: number;
}

/** Unix mode bits in the place a zip keeps them. */
export function unixAttributes(mode: number): number {
  return (mode << 16) >>> 0;
}

/**
 * Writes a zip archive by hand: local headers, data, central directory, end record. It
 * exists for the cases a zip library refuses to produce (links, setuid, encryption flags,
 * duplicate names, lying sizes).
 */
export function handmadeZip(entries: readonly HandmadeEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = typeof entry.name === "string" ? Buffer.from(entry.name, "utf8") : entry.name;
    const data = entry.data ?? Buffer.alloc(0);
    const method = entry.method ?? 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const flags = entry.flags ?? 0x800;
    const crc = entry.crc ?? crc32(data);
    const size = entry.declaredSize ?? data.length;
    const localName =
      entry.localName === undefined
        ? name
        : typeof entry.localName === "string"
          ? Buffer.from(entry.localName, "utf8")
          : entry.localName;
    const isFolder = name.toString("utf8").endsWith("/");
    const attributes = entry.externalAttributes ?? unixAttributes(isFolder ? 0o040755 : 0o100644);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.localFlags ?? flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(localName.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, localName, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.versionMadeBy ?? 0x031e, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE(attributes, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + localName.length + body.length;
  }
  const centralBytes = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralBytes, end]);
}
