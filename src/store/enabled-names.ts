import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rereadIfChanged, type StampedRead } from "../core/file-stamps.js";
import { INDEX_FILE, parseIndex } from "./index-file.js";

/**
 * The names of the store's enabled skills, read synchronously from `index.json` for
 * discovery (which is synchronous). A missing index means no skill is enabled; an index
 * that cannot be parsed enables nothing either (the store's own open reports it as
 * `store_corrupt`): when in doubt, offer less.
 */
export function readEnabledNames(storeFolder: string): ReadonlySet<string> {
  let text: string;
  try {
    text = readFileSync(join(storeFolder, INDEX_FILE), "utf8");
  } catch {
    return new Set();
  }
  try {
    const index = parseIndex(text, join(storeFolder, INDEX_FILE));
    return new Set([...index.skills].filter(([, entry]) => entry.enabled).map(([name]) => name));
  } catch {
    return new Set();
  }
}

/**
 * {@link readEnabledNames} for a caller that asks on every tool call: the names are read
 * again only when `index.json` is not the version last read (its inode, size and times; the
 * store replaces the file on every write), or was changed too recently for its stamp to be
 * trusted (core/file-stamps.ts). A repeat with nothing changed costs one `stat`.
 */
export function enabledNamesReader(
  storeFolder: string,
  now: () => number = Date.now,
): () => ReadonlySet<string> {
  let last: StampedRead<ReadonlySet<string>> | undefined;
  return () => {
    last = rereadIfChanged(join(storeFolder, INDEX_FILE), last, () => readEnabledNames(storeFolder), now);
    return last.value;
  };
}
