import { extname } from "node:path";

/**
 * Media types of the files skills usually hold, by extension. A file whose extension is
 * not here is `text/plain` when its bytes are UTF-8 text and `application/octet-stream`
 * otherwise. Script types use the names editors and browsers recognise.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".txt": "text/plain",
  ".py": "text/x-python",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".mts": "text/x-typescript",
  ".sh": "text/x-shellscript",
  ".bash": "text/x-shellscript",
  ".lua": "text/x-lua",
  ".rb": "text/x-ruby",
  ".json": "application/json",
  ".jsonl": "application/jsonl",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".xml": "application/xml",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
  ".wasm": "application/wasm",
};

/** The media type of a skill file from its name, and whether its content is text. */
export function mediaTypeOf(path: string, isText: boolean): string {
  const known = BY_EXTENSION[extname(path).toLowerCase()];
  if (known !== undefined) return known;
  return isText ? "text/plain" : "application/octet-stream";
}
