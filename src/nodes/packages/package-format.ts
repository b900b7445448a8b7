import { nameShape } from "../../skill/fields.js";
import { MAX_PACKAGE_NAME_LENGTH } from "./package-limits.js";

/**
 * The fixed parts of every package, so the same skill hash always gives the same bytes
 * (docs/nodes.md, "Packages"). Changing any of these changes every package's SHA-256 and
 * is a change of contract (a controller rebuilds; agents simply download again).
 */

/** Modification time of every entry: the Unix epoch. */
export const PACKAGE_MTIME = new Date(0);
/** Mode of every folder entry in the archive (the agent writes 0700 whatever it says). */
export const PACKAGE_FOLDER_MODE = 0o755;
/** Mode of every file entry in the archive (the agent writes 0600 whatever it says). */
export const PACKAGE_FILE_MODE = 0o644;
/** The gzip level: fixed, so the deflate stream depends on the content alone. */
export const PACKAGE_GZIP_LEVEL = 9;
/**
 * The gzip header's OS byte, set to "unknown" (255): zlib writes the build platform there,
 * which would make a package built on macOS differ from one built on Linux.
 */
export const PACKAGE_GZIP_OS = 255;

/** A full content hash: 64 lower-case hex characters. */
const FULL_HASH = /^[0-9a-f]{64}$/;

/** True for a full content hash or SHA-256 (64 lower-case hex characters). */
export function isFullHash(value: unknown): value is string {
  return typeof value === "string" && FULL_HASH.test(value);
}

/**
 * True for a skill name a package, a manifest or a cache folder may carry: what discovery
 * loads as a name (ASCII letters, digits, `_`, `.`, `-`, not only dots), at most 64
 * characters. Never holds `/` or `@`, so `<name>@<hash>` splits one way only.
 */
export function isPackageName(value: unknown): value is string {
  return (
    typeof value === "string" && value.length <= MAX_PACKAGE_NAME_LENGTH && nameShape(value) !== "refused"
  );
}

/** `name@hash`: how a package is named in the store, in URLs and in the agent's cache. */
export function packageKey(name: string, hash: string): string {
  return `${name}@${hash}`;
}

/** The name and hash of a `name@hash` key, or undefined when it is not one. */
export function parsePackageKey(key: string): { readonly name: string; readonly hash: string } | undefined {
  const at = key.lastIndexOf("@");
  if (at <= 0) return undefined;
  const name = key.slice(0, at);
  const hash = key.slice(at + 1);
  return isPackageName(name) && isFullHash(hash) ? { name, hash } : undefined;
}
