import { open } from "node:fs/promises";
import type { Readable } from "node:stream";

/** Where an upload comes from: bytes already in memory, a file path, or a stream. */
export type UploadSource = Buffer | Uint8Array | string | Readable;

/**
 * Reads an upload into memory, never holding more than `maxBytes + 1` bytes of it: the
 * moment one byte too many arrives, the source is closed and `tooLarge(bytesSeen)` is
 * thrown, so a larger upload is refused before it is all read. A file path is also checked
 * by its size first, and read through the same bound in case it grows or is not a regular
 * file (`/dev/zero`).
 */
export async function readBounded(
  source: UploadSource,
  maxBytes: number,
  tooLarge: (bytesSeen: number) => Error,
): Promise<Buffer> {
  if (typeof source === "string") return readFileBounded(source, maxBytes, tooLarge);
  if (source instanceof Uint8Array) {
    if (source.length > maxBytes) throw tooLarge(source.length);
    return Buffer.isBuffer(source) ? source : Buffer.from(source);
  }
  return readStreamBounded(source, maxBytes, tooLarge);
}

async function readFileBounded(
  path: string,
  maxBytes: number,
  tooLarge: (bytesSeen: number) => Error,
): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const stats = await handle.stat();
    if (stats.isFile() && stats.size > maxBytes) throw tooLarge(stats.size);
    return await readStreamBounded(handle.createReadStream({ autoClose: false }), maxBytes, tooLarge);
  } finally {
    await handle.close();
  }
}

async function readStreamBounded(
  stream: Readable,
  maxBytes: number,
  tooLarge: (bytesSeen: number) => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    // Leaving the loop by a throw destroys the stream, so the rest is never pulled.
    for await (const chunk of stream) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      total += bytes.length;
      if (total > maxBytes) throw tooLarge(total);
      chunks.push(bytes);
    }
  } finally {
    if (!stream.destroyed) stream.destroy();
  }
  return Buffer.concat(chunks, total);
}
