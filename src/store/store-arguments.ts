import { StoreArgumentError } from "./errors.js";
import { STORE_SOURCES, type StoreSource } from "./index-file.js";
import type { WriteAuthor } from "./store-types.js";

/**
 * Checks of the Store's method arguments that come from callers (the CLI, a server, the
 * tools): each refuses with `StoreArgumentError` (code `invalid_argument`, HTTP 400).
 */

/** A store source, one of STORE_SOURCES. */
export function checkSource(source: unknown): StoreSource {
  if (!(STORE_SOURCES as readonly unknown[]).includes(source))
    throw new StoreArgumentError("source", `source must be one of ${STORE_SOURCES.join(", ")}`);
  return source as StoreSource;
}

/** Who writes: the owner or the assistant. */
export function checkAuthor(author: unknown): WriteAuthor {
  if (author !== "owner" && author !== "assistant")
    throw new StoreArgumentError("author", "author must be owner or assistant");
  return author;
}

/** Only the owner may create a skill enabled; everything else is saved disabled. */
export function checkEnabled(enabled: boolean | undefined, source: StoreSource): boolean {
  if (enabled === true && source !== "owner")
    throw new StoreArgumentError(
      "enabled",
      `a skill from ${source} is saved disabled; enable it after review`,
    );
  return enabled === true;
}

/** An expected hash must be the full 64 hex digits (a prefix could be matched by a crafted change). */
export function checkExpected(hash: unknown): string | undefined {
  if (hash === undefined) return undefined;
  if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash))
    throw new StoreArgumentError(
      "hash",
      "a hash must be the full 64 lower-case hex digits of the content hash (skillgate store show NAME prints it; store list shows only the first 8)",
    );
  return hash;
}
